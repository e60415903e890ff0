"""The book's stand-in recording (nitime's event-related fMRI)."""

import numpy as np

from rnnbook.implicit_bias import fmri_standin


def test_fmri_stand_in_loader():
    X, y = fmri_standin.load_event_related_fmri()
    assert X.shape == (3360, 6) and y.shape == (3360, 1)
    assert (
        np.all(X.sum(0) == 96)
        and set(np.unique(X)) == {0.0, 1.0}
        and X.sum(1).max() == 1
    )
