import sys

from lpparse.cli import main

sys.exit(main())
