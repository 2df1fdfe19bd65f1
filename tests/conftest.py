import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=200)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile("ci" if "CI" in os.environ else "dev")
