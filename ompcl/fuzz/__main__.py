"""``python -m ompcl.fuzz``: run a differential fuzzing campaign."""
import sys

from .cli import main

sys.exit(main())
