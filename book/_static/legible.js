// Click a figure of a chapter to see it enlarged (on a phone: wider than the screen, to scroll);
// a click or Escape closes it. Figures are SVG: they stay sharp at any size.
document.addEventListener("DOMContentLoaded", () => {
  const close = () => document.querySelectorAll(".rnnbook-lightbox").forEach((e) => e.remove());
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") close(); });
  document.querySelectorAll(".bd-article .cell_output img").forEach((img) => {
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
