"""The lab's answers: a node's children, a page of a search's trace, the shipped counts."""
