#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # manage.py is the developer's tool: it defaults to DEBUG on. The servers (config.wsgi,
    # config.asgi) and the worker default to off and refuse to start with a default secret.
    os.environ.setdefault("DEBUG", "true")
    from django.core.management import execute_from_command_line

    if sys.argv[1:2] not in (["runserver"], []):
        # A command (migrate, backup, import_deck, seed) may work for minutes in long
        # statements: it takes the worker's statement bound, not a web request's.
        import django
        from django.conf import settings

        from config.database import statement_timeout_use

        django.setup()
        statement_timeout_use(settings.DB_WORKER_STATEMENT_TIMEOUT_S)
    execute_from_command_line(sys.argv)
