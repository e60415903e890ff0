"""The teacher tasks of Sec. 5.1: delay and signal-to-noise ratio."""

import pytest
import torch

from rnnbook.implicit_bias import conv_models as cm
from rnnbook.implicit_bias import teacher_tasks


def test_teacher_task_delay_and_snr():
    a = teacher_tasks.teacher_task(
        n_teacher=4,
        n_x=2,
        n_y=1,
        T=8,
        n_train=200,
        n_test=200,
        nu_W=0.3,
        nu_F=1.0,
        nu_C=1.0,
        snr_db=20.0,
        seed=4,
        delay=3,
    )
    b = teacher_tasks.teacher_task(
        n_teacher=4,
        n_x=2,
        n_y=1,
        T=8,
        n_train=200,
        n_test=200,
        nu_W=0.3,
        nu_F=1.0,
        nu_C=1.0,
        snr_db=20.0,
        seed=4,
        delay=0,
    )
    torch.testing.assert_close(a.L_true[3:], b.L_true[:5])
    assert torch.all(a.L_true[:3] == 0)
    clean = cm.conv_forward(a.L_true, a.X_train)
    assert float((a.Y_train - clean).var() / a.noise_var) == pytest.approx(1.0, abs=0.1)
    assert float((clean**2).mean() / a.noise_var) == pytest.approx(100.0, rel=0.2)
    with pytest.raises(ValueError, match="delay"):
        teacher_tasks.delayed(a.L_true, -1)
