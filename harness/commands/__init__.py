"""One module per CLI subcommand; each defines ``register(subparsers)``."""
