"""A CartPole written in plain Python: same physics as the classic control task, no gym needed."""

from __future__ import annotations

import math
import random

from .base import cpu_spin


class CartPole:
    gravity, cart_mass, pole_mass, half_pole, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02

    def __init__(self, seed: int = 0, step_cost_s: float = 0.0):
        self.rng = random.Random(seed)
        self.step_cost_s = step_cost_s  # extra CPU per step: a heavier simulator
        self.reset()

    def reset(self) -> list[float]:
        self.state = [self.rng.uniform(-0.05, 0.05) for _ in range(4)]
        self.t = 0
        return list(self.state)

    def step(self, action: int) -> tuple[list[float], float, bool]:
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        cos, sin = math.cos(theta), math.sin(theta)
        total = self.cart_mass + self.pole_mass
        temp = (force + self.pole_mass * self.half_pole * theta_dot**2 * sin) / total
        theta_acc = (self.gravity * sin - cos * temp) / (
            self.half_pole * (4.0 / 3.0 - self.pole_mass * cos**2 / total)
        )
        x_acc = temp - self.pole_mass * self.half_pole * theta_acc * cos / total
        x += self.tau * x_dot
        x_dot += self.tau * x_acc
        theta += self.tau * theta_dot
        theta_dot += self.tau * theta_acc
        self.state = [x, x_dot, theta, theta_dot]
        self.t += 1
        if self.step_cost_s:
            cpu_spin(self.step_cost_s)
        done = abs(x) > 2.4 or abs(theta) > 0.2095 or self.t >= 500
        return list(self.state), 1.0, done

    def heuristic_action(self, obs: list[float]) -> int:
        """A fixed linear policy (push towards where the pole falls), with a little noise."""
        if self.rng.random() < 0.1:
            return self.rng.randrange(2)
        return 1 if obs[2] + 0.5 * obs[3] > 0 else 0
