"""The web pages, in the test client and in a real browser."""
