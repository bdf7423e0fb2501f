"""The schema: its tables (SQLAlchemy Core) and bringing a database to the migrations' head (alembic)."""
