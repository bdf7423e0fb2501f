"""The search use case: keeping the index in step with writes (indexer), the overlay of what is pending, the
word search and its passages, and the regex scan. Uses the rules in scratchpad_core.search.
"""
