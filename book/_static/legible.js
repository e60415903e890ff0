// Click a figure of a chapter to see it enlarged (on a phone: wider than the screen, to scroll);
// a click or Escape closes it. Figures are SVG: they stay sharp at any size. On a phone a figure
// is scaled down to the screen (legible.css), with a hint under it that a tap enlarges it.
document.addEventListener("DOMContentLoaded", () => {
  const close = () => document.querySelectorAll(".rnnbook-lightbox").forEach((e) => e.remove());
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") close(); });
  document.querySelectorAll(".bd-article .cell_output img").forEach((img) => {
    // its own box, scaled to the screen (legible.css), with a hint under it
    if (!img.parentElement.classList.contains("rnnbook-figure")) {
      const box = document.createElement("div");
      box.className = "rnnbook-figure";
      img.replaceWith(box);
      box.appendChild(img);
      const hint = document.createElement("p");
      hint.className = "rnnbook-figure-hint";
      hint.textContent = "Shown smaller than drawn: tap the figure to enlarge it.";
      box.after(hint);
      const drawn = () => Number(img.getAttribute("width")) || img.naturalWidth;
      const mark = () => box.classList.toggle("rnnbook-scaled", drawn() > img.clientWidth + 1);
      img.complete ? mark() : img.addEventListener("load", mark);
      window.addEventListener("resize", mark);
    }
    img.setAttribute("tabindex", "0");
    img.setAttribute("role", "button");
    img.title = "Click to enlarge";
    const open = () => {
      const box = document.createElement("div");
      box.className = "rnnbook-lightbox";
      const big = document.createElement("img");
      big.src = img.src;
      big.alt = img.alt;
      box.appendChild(big);
      box.addEventListener("click", close);
      document.body.appendChild(box);
    };
    img.addEventListener("click", open);
    img.addEventListener("keydown", (e) => { if (e.key === "Enter") open(); });
  });
});

// A table or an inline formula wider than its column scrolls inside a box of its own instead of
// running out of the page (display equations scroll by CSS, see legible.css).
const rnnbookFit = () => {
  document.querySelectorAll(".bd-article table, .bd-article mjx-container").forEach((el) => {
    const parent = el.parentElement;
    if (!parent || parent.closest(".rnnbook-scroll")) return;
    if (el.getAttribute("display") === "true") return;
    if (el.getBoundingClientRect().width <= parent.clientWidth + 1) return;
    const box = document.createElement(el.tagName === "TABLE" ? "div" : "span");
    box.className = "rnnbook-scroll";
    el.replaceWith(box);
    box.appendChild(el);
  });
  // the article's width when it was last fitted (the browser test waits for it)
  const article = document.querySelector(".bd-article");
  if (article) article.dataset.rnnbookFitted = String(Math.round(article.clientWidth));
};
window.addEventListener("load", () => {
  const typeset = window.MathJax && MathJax.startup ? MathJax.startup.promise : null;
  (typeset || Promise.resolve()).then(rnnbookFit);
});

// A window widened, a tablet turned or the sidebar opened after the page opened lays tables and
// formulas out again: once the article's width has changed and stays put for a moment (not at
// every frame of the sidebar sliding in), fit them again, so that none that now overflows runs
// out of the page.
document.addEventListener("DOMContentLoaded", () => {
  const article = document.querySelector(".bd-article");
  if (!article || !window.ResizeObserver) return;
  let width = article.clientWidth;
  let settle = 0;
  new ResizeObserver(() => {
    if (article.clientWidth === width) return;
    width = article.clientWidth;
    clearTimeout(settle);
    settle = setTimeout(rnnbookFit, 100);
  }).observe(article);
});

// A title that is one dotted name (a reference page's "rnnbook.mean_field.jacobian_spectrum")
// may break after each dot on a phone, not in the middle of a word, and is set a size smaller
// there (legible.css, h1.dotted-name).
document.addEventListener("DOMContentLoaded", () => {
  for (const h of document.querySelectorAll("article h1")) {
    const text = h.firstChild;
    if (!text || text.nodeType !== Node.TEXT_NODE) continue;
    if (!/^\w+(\.\w+)+$/.test(text.data.trim())) continue;
    const parts = text.data.trim().split(".");
    const line = document.createDocumentFragment();
    parts.forEach((part, i) => {
      line.append(part + (i < parts.length - 1 ? "." : ""));
      if (i < parts.length - 1) line.append(document.createElement("wbr"));
    });
    h.replaceChild(line, text);
    h.classList.add("dotted-name");
  }
});
