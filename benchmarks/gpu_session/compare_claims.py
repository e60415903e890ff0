"""Compare the per-claim records of two builds (_build/claims/<part>/<chapter>/<id>.json): a CPU
and a GPU run of one profile should give the same verdicts, and values equal up to float error.

    python benchmarks/gpu_session/compare_claims.py CPU/_build/claims GPU/_build/claims
"""

import glob, json, math, sys


def nums(x, pre=""):
    if isinstance(x, bool) or x is None:
        return {}
    if isinstance(x, (int, float)):
        return {pre: float(x)}
    if isinstance(x, dict):
        return {
            k: v for kk, vv in x.items() for k, v in nums(vv, f"{pre}.{kk}").items()
        }
    if isinstance(x, list):
        return {
            k: v for i, vv in enumerate(x) for k, v in nums(vv, f"{pre}[{i}]").items()
        }
    return {}


def rows(folder):
    return {
        r["id"]: r
        for r in (
            json.load(open(f)) for f in glob.glob(folder + "/**/*.json", recursive=True)
        )
    }


a, b = rows(sys.argv[1]), rows(sys.argv[2])
print(len(a), "and", len(b), "claims")
same, out = 0, []
for k in sorted(set(a) & set(b)):
    na, nb = (
        nums(a[k].get("values") or a[k].get("measured")),
        nums(b[k].get("values") or b[k].get("measured")),
    )
    rel, worst = 0.0, None
    for key in set(na) & set(nb):
        x, y = na[key], nb[key]
        if math.isfinite(x) and math.isfinite(y):
            r = abs(x - y) / max(abs(x), abs(y), 1e-12)
            if r > rel:
                rel, worst = r, key
    va, vb = a[k]["verdict"], b[k]["verdict"]
    if va != vb or rel > 1e-4:
        out.append(f"{k}: {va} / {vb}; largest relative difference {rel:.1e} ({worst})")
    else:
        same += 1
print(same, "claims: same verdict, every value within 1e-4")
print("\n".join(out))
