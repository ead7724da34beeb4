"""longground's tests, one folder per package."""
