"""Learners shared by the papers."""
