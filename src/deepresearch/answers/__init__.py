"""Grounded answers: what a question asks for, candidate spans from evidence sentences, the choice."""
