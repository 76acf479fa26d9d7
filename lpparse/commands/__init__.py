"""Sub-commands of the ``lpparse`` command line (see :mod:`lpparse.cli`)."""
