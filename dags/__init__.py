"""Airflow DAG files (thin: library code does the work) and what they share."""
