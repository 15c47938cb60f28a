"""The "next release" of the multi-host rolling drill (tests/hostdrill.py,
``rolling``): a migration that only adds (a nullable column on the hot
``games_hand`` table, docs/operations.md "Upgrades while serving": expand,
then contract) and code that uses it (every hand it deals writes the
column). Its processes run with ``DJANGO_SETTINGS_MODULE=tests.settings_next``;
the previous release is the project's own settings, which know nothing of it."""
