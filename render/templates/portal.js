// The portal pages' one script: copy buttons (the boleto line, the PIX
// code) that record the copy, and print buttons. It is served inline and
// allowed by its SHA-256 in the pages' Content-Security-Policy
// (render.Renderer.PageCSP): no other script can run there.
(function () {
  var main = document.querySelector("main[data-token]");
  var token = main ? main.getAttribute("data-token") : "", eventURL = main ? main.getAttribute("data-event-url") : "";
  function record(kind) {
    if (!eventURL) return;
    try {
      fetch(eventURL, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({token: token, event: kind})});
    } catch (e) {}
  }
  function legacyCopy(text) {
    var t = document.createElement("textarea");
    t.value = text; t.setAttribute("readonly", ""); t.style.position = "fixed"; t.style.opacity = "0";
    document.body.appendChild(t); t.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) {}
    document.body.removeChild(t);
    return ok ? Promise.resolve() : Promise.reject(new Error("copy failed"));
  }
  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () { return legacyCopy(text); });
    }
    return legacyCopy(text);
  }
  document.querySelectorAll("button.print").forEach(function (b) {
    b.addEventListener("click", function () { window.print(); });
  });
  document.querySelectorAll("button.copy").forEach(function (b) {
    b.addEventListener("click", function () {
      copy(b.getAttribute("data-copy")).then(function () {
        b.textContent = "Copiado!";
        document.getElementById("aviso").textContent = "Código copiado.";
        record(b.getAttribute("data-event"));
      }, function () {
        document.getElementById("aviso").textContent = "Não foi possível copiar: selecione o código e copie manualmente.";
      });
    });
  });
})();
