"""Redaction's rules: what a secret may be, the marker that replaces it, and how it is found and removed in
stored text (as written, and in the forms a request record stores). The use case is in usecases/redaction/.
"""
