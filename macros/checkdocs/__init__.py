"""``recipes check PATH…``: the checker's front and back ends, above the engine.

``sources`` finds the shell blocks of a file (Markdown, MDX, reStructuredText, Jupyter
notebooks, shell scripts), each line with its place in the original file; ``notebook`` reads a
notebook's JSON with the place of every character of its cells; ``walk`` lists the files of the
paths given (``.gitignore`` respected); ``run`` checks every block with the engine's
``check_text`` and places its findings in the file; ``output`` prints them (text, JSON, GitHub
annotations, SARIF 2.1.0); ``rules`` is the table of the reader's own ``input.*`` rules;
``fix`` rewrites deprecated spellings and abbreviations in place;
``pytest_plugin`` and ``sybil_parser`` let another project's test suite check its own docs.
Nothing here changes what a finding means: that is ``macros/engine/check.py``'s.
"""
