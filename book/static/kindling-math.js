// Renders the book's math with KaTeX (a copy of Debian's libjs-katex in _static/katex: the book needs
// no network). The math extension in book/ext/kindling_book.py writes each formula as
// <span class="math" data-tex="..."> (inline) or <div class="math" data-display="1"> (display).
document.addEventListener("DOMContentLoaded", function () {
  if (typeof katex === "undefined") return;
  document.querySelectorAll(".math[data-tex]").forEach(function (el) {
    katex.render(el.dataset.tex, el, {displayMode: el.dataset.display === "1", throwOnError: false});
  });
});
