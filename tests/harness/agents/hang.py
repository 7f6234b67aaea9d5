"""Connects, then never finishes."""
import time

while True:
    time.sleep(1)
