"""The shared kernel: what every app may use and that uses no app (errors,
limits, the network's view of a client, notifications, retries, the channel
layer, the API's shared pieces, logs and metrics). Nothing here imports
accounts, wallet, games, moderation or the site (import-linter checks it)."""
