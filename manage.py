#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # manage.py is the developer's tool: it defaults to DEBUG on. The servers (config.wsgi,
    # config.asgi) and the worker default to off and refuse to start with a default secret.
    os.environ.setdefault("DEBUG", "true")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
