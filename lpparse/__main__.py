import sys

from lpparse.entry import main

sys.exit(main())
