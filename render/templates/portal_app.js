// The portal's only script (served from /portal/assets/, allowed by the
// Content-Security-Policy as 'self'): copy buttons, and what a form checks
// as it is typed. Every page works without it (the server checks all
// again on save); the buttons show only where it runs.
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

// checkDigit is the modulo 11 digit of a CPF's or CNPJ's characters under
// weights (a CNPJ's letters count as their code less 48, as the Receita's
// alphanumeric CNPJ rule says).
function checkDigit(chars, weights) {
  var sum = 0;
  for (var i = 0; i < weights.length; i++) sum += (chars.charCodeAt(i) - 48) * weights[i];
  var r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

function validCPF(d) {
  if (/^(\d)\1{10}$/.test(d)) return false;
  return checkDigit(d, [10, 9, 8, 7, 6, 5, 4, 3, 2]) === +d[9] && checkDigit(d, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]) === +d[10];
}

function validCNPJ(c) {
  if (/^(\d)\1{13}$/.test(c)) return false;
  return checkDigit(c, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]) === +c[12] &&
    checkDigit(c, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]) === +c[13];
}

// A CPF or CNPJ: its check digits said as typed, masked when left.
document.querySelectorAll("[data-check='register']").forEach(function (input) {
  var out = document.getElementById("verifica-" + input.name);
  function bare() { return input.value.toUpperCase().replace(/[.\-\/\s]/g, ""); }
  function check() {
    var v = bare(), msg = "", ok = true;
    if (/^\d{11}$/.test(v)) {
      ok = validCPF(v);
      msg = ok ? "CPF válido." : "CPF inválido: confira os 11 dígitos.";
    } else if (/^[0-9A-Z]{12}\d{2}$/.test(v)) {
      ok = validCNPJ(v);
      msg = ok ? "CNPJ válido." : "CNPJ inválido: confira os dígitos verificadores.";
    } else if (v.length > 14) {
      ok = false;
      msg = "Use os 11 dígitos do CPF ou os 14 caracteres do CNPJ.";
    }
    out.textContent = msg;
    input.setCustomValidity(ok ? "" : msg);
    return ok;
  }
  input.addEventListener("input", check);
  input.addEventListener("blur", function () {
    var v = bare();
    if (!check()) return;
    if (v.length === 11) input.value = v.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, "$1.$2.$3-$4");
    if (v.length === 14) input.value = v.replace(/^(.{2})(.{3})(.{3})(.{4})(\d{2})$/, "$1.$2.$3/$4-$5");
  });
});

// A CEP: its state (fincom's /portal/cep, from the Correios' ranges) fills
// the UF, and the state's municipalities are offered for the city.
document.querySelectorAll("[data-check='cep']").forEach(function (input) {
  var out = document.getElementById("verifica-" + input.name);
  var form = input.form;
  var state = form.querySelector("[name='state']");
  var city = form.querySelector("[data-check='city']");
  var list = document.createElement("datalist");
  list.id = "cidades-" + input.name;
  form.appendChild(list);
  if (city) city.setAttribute("list", list.id);
  var asked = "";
  function lookup() {
    var d = input.value.replace(/\D/g, "");
    if (d.length !== 8 || d === asked) return;
    asked = d;
    fetch("/portal/cep?cep=" + d, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) {
        out.textContent = "CEP inexistente: nenhum estado usa essa faixa.";
        return null;
      }
      return r.json();
    }).then(function (j) {
      if (!j) return;
      input.value = d.slice(0, 5) + "-" + d.slice(5);
      var changed = state && state.value.toUpperCase() !== j.state;
      if (state) state.value = j.state;
      out.textContent = "CEP de " + j.state + (changed ? " (UF preenchida)" : "") + ": escolha a cidade na lista.";
      list.textContent = "";
      j.cities.forEach(function (c) {
        var o = document.createElement("option");
        o.value = c;
        list.appendChild(o);
      });
    }).catch(function () { asked = ""; });
  }
  input.addEventListener("input", lookup);
  lookup();
});

// A new order's category follows what it sells until a person picks one:
// services' first, goods' once a product line is chosen (the server
// decides the same for a form sent with none).
(function () {
  var category = document.getElementById("campo-category");
  var items = document.querySelectorAll("select[name='item']");
  if (!category || !items.length) return;
  var picked = false;
  category.addEventListener("change", function () { picked = true; });
  function follow() {
    if (picked) return;
    var goods = false;
    items.forEach(function (s) {
      var o = s.options[s.selectedIndex];
      if (o && o.getAttribute("data-kind") === "product") goods = true;
    });
    var want = category.querySelector("option[data-group='" + (goods ? "goods" : "services") + "']");
    if (want) category.value = want.value;
  }
  items.forEach(function (s) { s.addEventListener("change", follow); });
})();

// A bill's contact is picked among the suppliers, an income's among the
// customers (each with those who are both).
document.querySelectorAll("input[name='contact'][list]").forEach(function (input) {
  input.form.querySelectorAll("input[name='type']").forEach(function (radio) {
    radio.addEventListener("change", function () {
      if (radio.checked) input.setAttribute("list", radio.value === "in" ? "clientes" : "fornecedores");
    });
  });
});
