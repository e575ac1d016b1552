import sys
from pathlib import Path

# Test helpers (models.py, transfer_checks.py) live beside the tests.
sys.path.insert(0, str(Path(__file__).resolve().parent))
