// The portal's only script (served from /portal/assets/, allowed by the
// Content-Security-Policy as 'self'): copy buttons. Every page works
// without it; the buttons show only where it runs.
document.querySelectorAll("[data-copy]").forEach(function (b) {
  b.hidden = false;
  b.addEventListener("click", function () {
    var el = document.getElementById(b.getAttribute("data-copy"));
    if (!el || !navigator.clipboard) return;
    navigator.clipboard.writeText(el.textContent.trim()).then(function () {
      var label = b.textContent;
      b.textContent = "Copiado";
      setTimeout(function () { b.textContent = label; }, 1500);
    });
  });
});
