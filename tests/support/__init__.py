"""What tests and benchmarks share: servers, clients, hosts, the hosting guide's blocks.

Never shipped in the wheel: pytest finds it beside the tests, and bench/ scripts put
tests/ on their path.
"""
