"""The benchmarks behind `mailjudge bench ...`: each runs the judge's real parts and prints its
figures; none is a test."""
