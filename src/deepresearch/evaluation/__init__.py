"""Scoring research runs against question sets with gold answers and gold passages."""
