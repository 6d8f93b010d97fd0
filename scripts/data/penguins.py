#!/usr/bin/python3
"""Writes data/penguins.csv from the Palmer penguins as the npm package vega-datasets
3.2.1 ships them (package/data/penguins.json; its datapackage.json gives the data's
licence, CC0 1.0, and its sources: Dr. Kristen Gorman and the Palmer Station
Antarctica LTER, via Allison Horst's palmerpenguins). 344 penguins, three species.

    npm pack vega-datasets@3.2.1 && tar xzf vega-datasets-3.2.1.tgz
    /usr/bin/python3 scripts/data/penguins.py package/data/penguins.json

Columns are renamed as the palmerpenguins package names them; the values are
copied as they are, but for the missing ones: null is written NA, and so is the one
sex recorded as "." (a missing entry, not a third sex). Rows keep the source order.
"""
import csv
import json
import sys

COLUMNS = [("species", "Species"), ("island", "Island"), ("bill_length_mm", "Beak Length (mm)"),
           ("bill_depth_mm", "Beak Depth (mm)"), ("flipper_length_mm", "Flipper Length (mm)"),
           ("body_mass_g", "Body Mass (g)"), ("sex", "Sex")]

rows = json.load(open(sys.argv[1]))
with open("data/penguins.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow([name for name, _ in COLUMNS])
    for r in rows:
        cells = []
        for name, key in COLUMNS:
            v = r[key]
            if v is None or (name == "sex" and v == "."):
                cells.append("NA")
            elif isinstance(v, float):
                cells.append(repr(v))
            else:
                cells.append(str(v))
        w.writerow(cells)
