"""The demos that only a multi-node Ray cluster shows. Imports no Ray: the web reads this.

On one node each says so in its verdict and shows what it can; `make ray-cluster` starts the
two-node cluster they are written for (deploy/ray-local-cluster.sh).
"""

from __future__ import annotations

from . import bounds
from .base import Chart, DemoSpec, Param, Series
from .claims import Check, Claim

CLUSTER_DEMOS: tuple[DemoSpec, ...] = (
    DemoSpec(
        slug="cluster-objects",
        title="Cluster: an object on its own node vs fetched from another",
        description="A large NumPy array is made on one node, then read by a task on that node "
        "and by a task on another node, twice. Each read's ray.get is timed inside the task.",
        what_to_see="Compare the three lines: a read on the node that holds the object maps its "
        "shared memory; the first read on another node has to move the bytes over; a second "
        "read there uses the copy the first one left. The summary gives the bytes moved.",
        params=(
            Param("size_mb", "int", 100, 1, 200, "array size in megabytes"),
            Param("trials", "int", 3, 1, 6, "repeated trials (a fresh array each)"),
        ),
        chart=Chart(
            "trial",
            "",
            "ray.get time",
            "ms",
            (
                Series("same_node", "same node (zero-copy)"),
                Series("other_node", "other node, first read"),
                Series("other_again", "other node, read again"),
            ),
            y_log=True,
        ),
        module="cluster_objects",
        claim=Claim(
            "A read from the other node took at least 3x as long as a read on the object's own "
            "node, which mapped it from shared memory.",
            (
                Check(
                    "other_node_ms",
                    over="same_node_ms",
                    at_least=3,
                    part="a read from the "
                    "other node at least 3x as long as one on the object's own node",
                ),
                Check("zero_copy", at_least=1, part="the same-node read mapped shared memory"),
            ),
            bounds=bounds.CLUSTER_OBJECTS,
        ),  # fmt: skip
        expected_points=lambda p: 3 * p["trials"],
    ),
    DemoSpec(
        slug="cluster-placement",
        title="Cluster: where placement-group bundles land",
        description="Placement groups with the PACK and STRICT_SPREAD strategies, and a strictly "
        "spread group with one bundle more than the cluster has nodes.",
        what_to_see="Each point is a bundle and the node it was placed on. Look at how many "
        "nodes each strategy used, and at the free CPUs while the oversized group waits.",
        params=(
            Param("bundles", "int", 2, 1, 8, "bundles in the PACK group"),
            Param("spread_bundles", "int", 2, 2, 8, "bundles in the STRICT_SPREAD group"),
            Param("bundle_cpus", "float", 0.5, 0.1, 1, "CPUs each bundle reserves"),
            Param("infeasible_wait_s", "float", 1.5, 0.5, 10, "wait for the oversized group, s"),
        ),
        chart=Chart(
            "bundle",
            "",
            "node",
            "",
            (Series("pack", "PACK"), Series("spread", "STRICT_SPREAD")),
        ),
        module="cluster_placement",
        claim=Claim(
            "PACK's bundles shared one node, STRICT_SPREAD's each had a node of their own, and a "
            "group with more bundles than nodes stayed pending without reserving a CPU.",
            (
                Check("pack_nodes", at_most=1, part="PACK's bundles shared one node"),
                Check(
                    "spread_distinct",
                    at_least=1,
                    part="STRICT_SPREAD's bundles each had a node of their own",
                ),
                Check(
                    "oversized_pending",
                    at_least=1,
                    part="the group with more bundles than nodes stayed pending",
                ),
                Check(
                    "cpus_reserved_while_pending",
                    at_most=0,
                    part="it reserved no CPU while pending",
                ),
            ),
            bounds=bounds.CLUSTER_PLACEMENT,
            timing=False,  # fmt: skip
        ),
        expected_points=lambda p: p["bundles"] + p["spread_bundles"],
        nodes_needed=lambda p: p["spread_bundles"],
        nodes_param="spread_bundles",
    ),
    DemoSpec(
        slug="cluster-node-failure",
        title="Cluster: a worker node dies mid-run",
        description="A learner actor and a large object live on a worker node; mid-run the "
        "node's raylet is killed (SIGKILL), taking every process of that node with it. Only a "
        "node offering the raydeck-chaos resource is ever killed.",
        what_to_see="Look at the step times around the kill and at the restart point: how long "
        "the learner took to answer again, and from which node. The summary says how many "
        "times the object's task ran, and where.",
        params=(
            Param("steps", "int", 12, 3, 60, "learner steps"),
            Param("kill_at_step", "int", 5, 2, 59, "step at which the node is killed"),
            Param("work_ms", "int", 50, 1, 500, "CPU time per learner step, ms"),
            Param("object_mb", "int", 20, 1, 100, "size of the object that lives on the node"),
        ),
        chart=Chart(
            "step",
            "",
            "time",
            "ms",
            (Series("step_ms", "learner step"), Series("restart", "kill to answering again")),
        ),
        module="cluster_failure",
        claim=Claim(
            "After its node died, the learner answered again from a surviving node, and the "
            "object whose only copy was there was rebuilt there by running its task again.",
            (
                Check(
                    "actor_moved",
                    at_least=1,
                    part="the learner answered again from a surviving node",
                ),
                Check("object_task_runs", at_least=2, part="the object's task ran again"),
                Check(
                    "rebuilt_elsewhere",
                    at_least=1,
                    part="the object was rebuilt on a surviving node",
                ),
            ),
            bounds=bounds.CLUSTER_FAILURE,
            timing=False,  # fmt: skip
        ),
        expected_points=lambda p: p["steps"] + 1,
        time_limit_s=120,
    ),
    DemoSpec(
        slug="cluster-scheduling",
        title="Cluster: custom resources and an unschedulable task",
        description="Tasks that ask for a custom resource only one node offers, and one task "
        "that asks for a resource no node offers.",
        what_to_see="Each point is a steered task and the node it ran on. The summary says what "
        "became of the task that asked for the impossible.",
        params=(
            Param("tasks", "int", 8, 1, 32, "steered tasks"),
            Param("unschedulable_wait_s", "float", 1.5, 0.5, 10, "wait for the impossible task"),
        ),
        chart=Chart("task", "", "node", "", (Series("steered", "steered task"),)),
        module="cluster_scheduling",
        claim=Claim(
            "Every task asking for a resource that one node offers ran on that node, and the "
            "task asking for a resource no node offers never started.",
            (
                Check(
                    "steered_on_target",
                    at_least=100,
                    part="every steered task ran on the node offering its resource",
                ),
                Check(
                    "impossible_started",
                    at_most=0,
                    part="the task asking for a resource no node offers never started",
                ),
            ),
            bounds=bounds.CLUSTER_SCHEDULING,
            timing=False,  # fmt: skip
        ),
        expected_points=lambda p: p["tasks"],
    ),
)
