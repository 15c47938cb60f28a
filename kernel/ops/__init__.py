"""Running it for real, the pieces the apps use: the log context and format,
metric definitions, the sweeper heartbeat, error reporting, per-item isolation
(the site's probes, scrape and retention: ``vipgame.ops``)."""
