import sys

from macros.catalog_build.command import main

sys.exit(main())
