"""Playing games between players (and, later, matches and their statistics)."""
