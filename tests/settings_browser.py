"""The project's settings for the browser tests' Daphne and Celery worker
(tests/e2e/conftest.py ``Stack``): two costs a player never sees there, cut.

* Passwords are hashed in one MD5 round, as the test processes hash them
  (tests/conftest.py takes this list): Django's PBKDF2 takes 1,000,000
  rounds, about 0.2 CPU-s a signup or a sign-in, and a run of the browser
  tests signs up about fifty players. The policy itself, the project's
  hashers and their upgrade, is tested in tests/accounts/.
* Static files are cached by the browser for 60 s, as production serves
  them (WhiteNoise's default with ``DEBUG`` off), instead of asked for again
  on every page (its default with ``DEBUG`` on, which the tests run with):
  each test's pages load a module once, not once a page.

bench/RESULTS.md "The test suite" has what each saves."""

from vipgame.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
WHITENOISE_MAX_AGE = 60
