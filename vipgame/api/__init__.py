"""The API's site-level answers: 404 and 500 under ``/api/``, the protocol page
(the shared API pieces: ``kernel.api``)."""
