"""vcore's calibration suite: every usable public measurement (../shared/MEASURED.md, summarised in
docs/timing.md) as a program of this folder with its measured figure, in `a2.toml` and `950.toml`
(each a `vcore calibrate` input). `make calibrate` prints the model against them; `make calibrate
FIT=1` fits each file's parameters and writes them into emulator/profiles/; `make docs` puts the
table into docs/timing.md."""
