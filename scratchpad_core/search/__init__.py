"""Search's rules: how text becomes words (the analyzer's port), index rows and statistics, and how a match is
ranked. Standard library only; the use case that answers a search is in usecases/search/.
"""
