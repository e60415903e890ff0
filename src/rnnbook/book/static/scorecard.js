/* The scorecard's filter (issue 51): show the claims of one paper, of one verdict, or both.
   Offline: it reads the rows' data-paper and data-verdict, nothing else. A paper whose
   claims are all filtered out is hidden with its heading. */
document.addEventListener('DOMContentLoaded', () => {
  const form = document.querySelector('.scorecard-filter');
  if (!form) return;
  const pick = (k) => form.querySelector(`select[data-filter="${k}"]`).value;
  const apply = () => {
    const paper = pick('paper'), verdict = pick('verdict');
    let shown = 0, total = 0;
    document.querySelectorAll('table.claims-table.scorecard tbody tr').forEach((tr) => {
      total += 1;
      const ok = (!paper || tr.dataset.paper === paper)
        && (!verdict || tr.dataset.verdict === verdict);
      tr.classList.toggle('scorecard-hidden', !ok);
      if (ok) shown += 1;
    });
    document.querySelectorAll('table.claims-table.scorecard').forEach((t) => {
      const section = t.closest('section');
      const any = t.querySelector('tbody tr:not(.scorecard-hidden)');
      if (section) section.classList.toggle('scorecard-hidden', !any);
    });
    const said = form.querySelector('.scorecard-shown');
    if (said) said.textContent = `${shown} of ${total} claims shown`;
  };
  form.addEventListener('change', apply);
  form.addEventListener('reset', () => setTimeout(apply, 0));
  apply();
});
