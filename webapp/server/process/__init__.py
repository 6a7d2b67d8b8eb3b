"""The process side: gunicorn's arbiter and workers, the checks before, the workers' tasks."""
