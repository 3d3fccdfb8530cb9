"""RayDeck settings: one file, every value from the environment with a safe default."""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from config.database import statement_timeout_options

BASE_DIR = Path(__file__).resolve().parent.parent


TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "0", "no", "off"})


def envbool(name: str, default: bool) -> bool:
    """true/1/yes/on or false/0/no/off, any case; unset or empty is the default. Anything else
    (a typo such as "flase") stops the start-up naming the variable, rather than reading as off."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of true, false, 1, 0, yes, no, on, off; got {os.environ[name]!r}"
    )


def envint(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def envlist(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEV_SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
DEBUG = envbool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", DEV_SECRET_KEY)
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver" if DEBUG else "")

if not DEBUG:
    # Production refuses to start half-configured rather than run with a public default.
    if SECRET_KEY == DEV_SECRET_KEY or len(SECRET_KEY) < 50:
        raise ImproperlyConfigured("Set SECRET_KEY to a random string of 50+ characters.")
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured("Set ALLOWED_HOSTS, e.g. ALLOWED_HOSTS=raydeck.example.com")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "csp",
    "axes",
    "apps.charts",
    "apps.accounts",
    "apps.decks",
    "apps.study",
    "apps.practice",
    "apps.interview",
    "apps.review",
    "apps.browse",
    "apps.quizzes",
    "apps.demos",
    "apps.exercises",
    "apps.teams",
    "apps.authoring",
    "apps.site",
    "apps.operations",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # HTML and JSON go out gzipped (static files come precompressed from whitenoise). BREACH:
    # Django's GZipMiddleware pads each response with random bytes (Heal-the-BREACH, Django
    # 4.2+), and the CSRF token in every page is masked afresh per response, so a compressed
    # length gives the token away no more than it would uncompressed.
    "django.middleware.gzip.GZipMiddleware",
    "config.middleware.DatabaseUnavailableMiddleware",  # 503 + a sentence while the DB is away
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "config.limits.RequestBytesMiddleware",  # 400 for NUL or non-UTF-8 in path, query, form
    "config.security.PageWriteThrottleMiddleware",  # page writes share the API's "write" rate
    "django.contrib.messages.middleware.MessageMiddleware",
    "apps.authoring.middleware.SuggestionNewsMiddleware",  # "your suggested edit was accepted"
    "config.errors.ServiceErrorMiddleware",  # a service's refusal on a page (config.errors)
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "apps.accounts.middleware.UserTimezoneMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out login into the lock-out page
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'raydeck.sqlite3'}"),
        conn_max_age=envint("DB_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the web server read while the worker writes demo points.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
# Every statement has a bound (config/database.py): the web's, under gunicorn's 30 s timeout; the
# worker's and management commands', for imports, backups and migrations. 0 turns a bound off.
DB_STATEMENT_TIMEOUT_S = envint("DB_STATEMENT_TIMEOUT_S", 15)
DB_WORKER_STATEMENT_TIMEOUT_S = envint("DB_WORKER_STATEMENT_TIMEOUT_S", 1800)
# PostgreSQL's JIT compiles any statement its planner costs above jit_above_cost: 50-230 ms of
# compiling for the study queue's 1-6 ms statements, whose cost estimates count a lookup per row
# they might read (issue 30, bench/README-queue-scale.md). The app's statements are short: off,
# unless DB_JIT=true.
DB_JIT = envbool("DB_JIT", False)
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    DATABASES["default"]["OPTIONS"] = statement_timeout_options(
        DATABASES["default"].get("OPTIONS", {}), DB_STATEMENT_TIMEOUT_S, jit=DB_JIT
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out username+address
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# E-mail (password resets): printed to the console unless an SMTP server is configured, e.g.
# EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend EMAIL_HOST=smtp.example.com.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = envint("EMAIL_PORT", 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = envbool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = envint("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "RayDeck <raydeck@localhost>")
PASSWORD_RESET_TIMEOUT = envint("PASSWORD_RESET_TIMEOUT", 3 * 24 * 3600)

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Images of decks (apps.decks.models.Media) go through Django's storage API: files under
# MEDIA_ROOT by default; MEDIA_STORAGE=s3 keeps them in an S3-compatible bucket through
# django-storages (pip install "django-storages[s3]"; docs/configuration.md). Either way they
# are served only by the decks:media view, which checks who may see the deck: never a public URL.
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "var" / "media"))
MEDIA_STORAGE = os.environ.get("MEDIA_STORAGE", "filesystem").strip().lower()
if MEDIA_STORAGE not in ("filesystem", "s3"):
    raise ImproperlyConfigured(f"MEDIA_STORAGE must be filesystem or s3, got {MEDIA_STORAGE!r}")
MEDIA_BACKEND: dict[str, object] = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
if MEDIA_STORAGE == "s3":
    MEDIA_BACKEND = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": os.environ.get("MEDIA_S3_BUCKET", ""),
            "endpoint_url": os.environ.get("MEDIA_S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("MEDIA_S3_REGION") or None,
            "access_key": os.environ.get("MEDIA_S3_ACCESS_KEY_ID") or None,
            "secret_key": os.environ.get("MEDIA_S3_SECRET_ACCESS_KEY") or None,
            "location": os.environ.get("MEDIA_S3_PREFIX", "raydeck"),
            "default_acl": "private",
            "querystring_auth": True,
            "file_overwrite": False,
        },
    }
STORAGES = {
    "default": MEDIA_BACKEND,
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Security: strict by default in production, overridable behind a TLS-terminating proxy.
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]  # probes speak plain HTTP to the pod
# Database sessions; a save during an outage is a 503, not "session deleted" (config/sessions.py)
SESSION_ENGINE = "config.sessions"
SESSION_COOKIE_SECURE = envbool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = envbool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS")
X_FRAME_OPTIONS = "DENY"
# How many reverse proxies append to X-Forwarded-For in front of the app (0: the header is ignored,
# REMOTE_ADDR is the client). Used by the login lock-out and the API throttles alike.
TRUSTED_PROXY_COUNT = envint("TRUSTED_PROXY_COUNT", 0)

# Content Security Policy (django-csp): no inline script, style or handler anywhere, in DEBUG too,
# so the browser tests catch a violation. Behaviour lives in static/js; htmx is told not to eval
# or inject styles (templates/base.html). The API docs page relaxes style-src (config/security.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
        "base-uri": [SELF],
        "object-src": [NONE],
    }
}

# Login lock-out (django-axes): N failures for one username from one address lock that pair out
# for the cool-off; other users and addresses are unaffected, a success resets the count.
AXES_FAILURE_LIMIT = envint("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=float(os.environ.get("AXES_COOLOFF_TIME", 15)))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "config.security.lockout_response"  # accounts/locked_out.html, 429
AXES_CLIENT_IP_CALLABLE = "config.security.client_ip"

# One cache for every process: Redis when CACHE_URL is set, else files under var/cache (shared by
# the processes of one machine; per-process memory would give each worker its own throttle count).
CACHE_URL = os.environ.get("CACHE_URL", "")
if CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {
        "default": {
            # Redis, or process memory while Redis is out of reach (config/cache.py): the cache
            # holds only throttle counts and dashboards, so an outage must not fail requests.
            "BACKEND": "config.cache.DegradingRedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "raydeck",
            "OPTIONS": {
                "socket_connect_timeout": float(os.environ.get("CACHE_TIMEOUT_S", 0.5)),
                "socket_timeout": float(os.environ.get("CACHE_TIMEOUT_S", 0.5)),
            },
        }
    }
elif CACHE_URL:
    raise ImproperlyConfigured(f"CACHE_URL must be redis://host:port/db or empty, got {CACHE_URL}")
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": os.environ.get("CACHE_DIR", str(BASE_DIR / "var" / "cache")),
            "KEY_PREFIX": "raydeck",
            "OPTIONS": {"MAX_ENTRIES": 10000},
        }
    }
TEAMS_PROGRESS_CACHE_S = envint("TEAMS_PROGRESS_CACHE_S", 60)  # a team dashboard's reuse; 0: off

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON bodies: UTF-8, no NUL, nesting bounded (config/limits.py).
    "DEFAULT_PARSER_CLASSES": [
        "config.limits.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "config.api.DocumentedErrors",  # successes and the JSON errors
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # Counted in the shared cache; generous enough for the review loop at keyboard speed and the
    # test suite, and raised through the environment for the load bench.
    "DEFAULT_THROTTLE_CLASSES": [
        "config.security.AnonThrottle",
        "config.security.UserThrottle",
        "config.security.WriteThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("THROTTLE_ANON", "60/min"),
        "user": os.environ.get("THROTTLE_USER", "1200/min"),
        "write": os.environ.get("THROTTLE_WRITE", "300/min"),
        # Password-reset e-mails: per address asked for (whether it has an account or not, so
        # the answer tells nothing), and per client address.
        "password_reset_email": os.environ.get("THROTTLE_PASSWORD_RESET_EMAIL", "3/hour"),
        "password_reset_ip": os.environ.get("THROTTLE_PASSWORD_RESET_IP", "20/hour"),
    },
}
# Writes that cost real work, counted by WriteThrottle on top of the per-user rate.
THROTTLED_WRITE_VIEWS = {
    "apps.review.api.ReviewCreate",
    "apps.quizzes.api.AttemptCreate",
    "apps.demos.api.DemoRunCreate",
    "apps.authoring.api.DeckImport",
    "apps.authoring.api.ImportJobCreate",
    "apps.exercises.api.SubmissionCreate",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "RayDeck API",
    "DESCRIPTION": "Decks, SM-2 reviews, quizzes, live Ray demos and teams.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Several components have a "kind" field (as DESIGN.md names them); name each enum once.
    "ENUM_NAME_OVERRIDES": {
        "QuizKindEnum": "apps.quizzes.models.Quiz.Kind",
        "QuestionKindEnum": "apps.quizzes.models.Question.Kind",
        "CardKindEnum": "apps.decks.models.Card.Kind",
    },
}

# Celery. The embedded default, so a fresh clone needs no broker server, is a SQLite file under
# CELERY_DATA_DIR served by kombu's SQLAlchemy transport (config/broker.py). kombu's filesystem
# transport (filesystem://) still works where it is asked for; it can lose a message and stop
# the worker (docs/configuration.md).
CELERY_DATA_DIR = Path(os.environ.get("CELERY_DATA_DIR", BASE_DIR / "var" / "celery"))
CELERY_BROKER_URL = os.environ.get(
    "CELERY_BROKER_URL", f"sqlite:///{CELERY_DATA_DIR / 'broker.sqlite3'}"
)
if CELERY_BROKER_URL.startswith("sqlite:"):
    CELERY_DATA_DIR.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {"polling_interval": 0.1}
elif CELERY_BROKER_URL.startswith("filesystem://"):
    for sub in ("in", "processed", "control"):
        (CELERY_DATA_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_DATA_DIR / "in"),
        "data_folder_out": str(CELERY_DATA_DIR / "in"),
        "processed_folder": str(CELERY_DATA_DIR / "processed"),
        "control_folder": str(CELERY_DATA_DIR / "control"),
        "store_processed": False,
        "polling_interval": 0.1,
    }
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_REDIRECT_STDOUTS = False  # Ray's init needs a real stdout fileno.
CELERY_WORKER_CONCURRENCY = envint("CELERY_WORKER_CONCURRENCY", 2)
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]

# Ray: an address such as "ray://head:10001" or "auto"; empty means a local Ray run by the worker.
RAY_ADDRESS = os.environ.get("RAY_ADDRESS", "")
RAY_NUM_CPUS = envint("RAY_NUM_CPUS", 2)
RAY_SHIP_CODE = envbool("RAY_SHIP_CODE", True)  # send apps/ with the job to a RAY_ADDRESS cluster
# Demos run on their own queue, served by one worker with concurrency 1 (Procfile "demos"):
# one demo at a time keeps measurements honest and Ray in a single process.
CELERY_TASK_ROUTES = {"demos.*": {"queue": "demos"}, "exercises.*": {"queue": "exercises"}}
CELERY_WORKER_PROC_ALIVE_TIMEOUT = 60  # a cold ray.init in worker_process_init takes 2-7 s
DEMOS_MAX_ACTIVE_RUNS_PER_USER = envint("DEMOS_MAX_ACTIVE_RUNS_PER_USER", 3)
DEMOS_HEARTBEAT_S = envint("DEMOS_HEARTBEAT_S", 5)
DEMOS_STALE_AFTER_S = envint("DEMOS_STALE_AFTER_S", 60)
DEMOS_QUEUED_TIMEOUT_S = envint("DEMOS_QUEUED_TIMEOUT_S", 900)

# Every worker's reaper (config/workers.py) fails jobs whose worker died, every REAP_EVERY_S.
REAP_EVERY_S = envint("REAP_EVERY_S", 30)
# An import job's heartbeat; one silent for IMPORTS_STALE_AFTER_S is failed (the deck freed), as is
# one no worker picked up within IMPORTS_QUEUED_TIMEOUT_S.
IMPORTS_HEARTBEAT_S = envint("IMPORTS_HEARTBEAT_S", 5)
IMPORTS_STALE_AFTER_S = envint("IMPORTS_STALE_AFTER_S", 60)
IMPORTS_QUEUED_TIMEOUT_S = envint("IMPORTS_QUEUED_TIMEOUT_S", 900)

# Code exercises run on their own queue (Procfile "exercises"), each in a fresh bubblewrap sandbox
# with these limits (apps/exercises/sandbox.py); docs/security.md says how production isolates it.
EXERCISES_BWRAP = os.environ.get("EXERCISES_BWRAP", "/usr/bin/bwrap")
EXERCISES_CPU_S = envint("EXERCISES_CPU_S", 5)
EXERCISES_WALL_S = min(30, envint("EXERCISES_WALL_S", 10))
# Exercises that declare `runtime: ray` start a local Ray in their sandbox (docs/security.md).
EXERCISES_RAY_WALL_S = min(180, envint("EXERCISES_RAY_WALL_S", 90))
EXERCISES_RAY_MEMORY_MB = envint("EXERCISES_RAY_MEMORY_MB", 1024)  # all its processes together
EXERCISES_MEMORY_MB = envint("EXERCISES_MEMORY_MB", 512)
EXERCISES_PROCESSES = envint("EXERCISES_PROCESSES", 32)
EXERCISES_OUTPUT_KB = envint("EXERCISES_OUTPUT_KB", 1024)  # stdout + stderr before a run is stopped
EXERCISES_MAX_CODE_BYTES = envint("EXERCISES_MAX_CODE_BYTES", 64 * 1024)
EXERCISES_SWEEP_S = envint("EXERCISES_SWEEP_S", 10)  # the worker's heartbeat and sweep
EXERCISES_RESEND_S = envint("EXERCISES_RESEND_S", 60)  # a queued job not picked up: sent again
EXERCISES_WORKER_STALE_S = envint("EXERCISES_WORKER_STALE_S", 45)  # no heartbeat: "no worker"
EXERCISES_WAIT_NOTICE_S = envint("EXERCISES_WAIT_NOTICE_S", 15)  # queued this long: page says why

# A learner's own decks: at most this many cards in use, and this much storage (their images
# plus their cards' text); past either, a create, an import or an upload is refused saying so.
OWN_CARDS_MAX = envint("OWN_CARDS_MAX", 5000)
OWN_BYTES_MAX = envint("OWN_BYTES_MAX", 100 * 2**20)
# One image (an upload or an .apkg's media file): its bytes, and its pixels (width x height, all
# frames of an animation together), checked from its header before it is decoded.
MEDIA_MAX_BYTES = envint("MEDIA_MAX_BYTES", 2 * 2**20)
MEDIA_MAX_PIXELS = envint("MEDIA_MAX_PIXELS", 16_000_000)
# Fields one form post may carry. The card browser's bulk forms post up to 1,000 card ids beside
# their own fields; at Django's default of 1,000 a post of 998 ids was refused unread. With room
# past that, the form reads a post that names too many and refuses it with its own sentence.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 5000

RAYDECK_DEFAULT_NEW_CARDS_PER_DAY = envint("RAYDECK_NEW_CARDS_PER_DAY", 20)
RAYDECK_DEFAULT_REVIEWS_PER_DAY = envint("RAYDECK_REVIEWS_PER_DAY", 200)
# How many days a device may hold reviews made offline (and its pack of cards): a synced review
# older than this is refused (issue 32).
RAYDECK_OFFLINE_HOLD_DAYS = envint("RAYDECK_OFFLINE_HOLD_DAYS", 7)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
