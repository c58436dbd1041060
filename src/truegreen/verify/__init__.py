"""Verifying a claimed fix: exam, tamper, regression layers and the verdict."""
