"""What `mkdocs build` runs besides MkDocs itself (mkdocs.yml's hooks): the pages generated from the code (the tools
from the server's own definitions, the command line from its click commands) and the plots of the benchmarks'
figures (docs/figures.toml). Nothing here is imported by the package; it imports the package."""
