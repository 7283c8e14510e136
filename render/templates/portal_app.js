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

// A new order's lines: each item typed or picked from the list shows its
// line's total, the order's total (with freight) follows as one types;
// lines are added and removed here (without this script the form has
// empty lines and a button for more). The category follows what it sells
// until a person picks one: services' first, goods' once a product is
// chosen (the server decides the same for a form sent with none).
(function () {
  var table = document.getElementById("linhas-pedido");
  var list = document.getElementById("itens");
  if (!table || !list) return;
  var body = table.tBodies[0];
  var category = document.getElementById("campo-category");
  var freight = document.getElementById("campo-freight_total");
  var total = document.getElementById("total-pedido");
  var picked = false;
  if (category) category.addEventListener("change", function () { picked = true; });
  var byText = {};
  Array.prototype.forEach.call(list.options, function (o) { byText[o.value] = o; });
  // The option a line's text names: as offered, else the only one
  // holding it (case aside), as the server reads it.
  function find(text) {
    if (byText[text]) return byText[text];
    var t = text.trim().toLowerCase(), found = null;
    if (!t) return null;
    for (var k in byText) {
      if (k.toLowerCase().indexOf(t) >= 0) {
        if (found) return null;
        found = byText[k];
      }
    }
    return found;
  }
  function num(s) {
    s = (s || "").trim().replace(/^R\$\s*/, "");
    if (s.indexOf(",") >= 0) s = s.replace(/\./g, "").replace(",", ".");
    else if (/^\d{1,3}(\.\d{3})+$/.test(s)) s = s.replace(/\./g, "");
    var n = Number(s);
    return s === "" || isNaN(n) ? null : n;
  }
  function brl(cents) {
    var neg = cents < 0, v = Math.abs(cents), reais = Math.floor(v / 100).toString(), c = (v % 100).toString();
    reais = reais.replace(/\B(?=(\d{3})+(?!\d))/g, ".");
    return (neg ? "-" : "") + "R$ " + reais + "," + (c.length < 2 ? "0" + c : c);
  }
  function recompute() {
    var sum = 0, goods = false;
    Array.prototype.forEach.call(body.rows, function (row) {
      var item = row.querySelector("input[name='item']"), qty = row.querySelector("input[name='quantity']");
      var out = row.querySelector("output[data-line-total]");
      var o = find(item.value);
      var q = num(qty.value === "" ? "1" : qty.value);
      if (o && q !== null) {
        var cents = Math.round(Number(o.getAttribute("data-price")) * 100 * q);
        sum += cents;
        out.value = brl(cents);
        if (o.getAttribute("data-kind") === "product") goods = true;
      } else {
        out.value = "";
      }
    });
    var f = freight ? num(freight.value) : null;
    if (f !== null) sum += Math.round(f * 100);
    if (total) total.value = brl(sum);
    if (category && !picked) {
      var want = category.querySelector("option[data-group='" + (goods ? "goods" : "services") + "']");
      if (want) category.value = want.value;
    }
  }
  function number() {
    Array.prototype.forEach.call(body.rows, function (row, i) {
      var n = i + 1;
      row.cells[0].textContent = n;
      row.querySelectorAll("[id]").forEach(function (el) { el.id = el.id.replace(/-\d+$/, "-" + n); });
      row.querySelectorAll("label[for]").forEach(function (el) { el.htmlFor = el.htmlFor.replace(/-\d+$/, "-" + n); });
      var rm = row.querySelector("[data-remove-line]");
      if (rm) rm.setAttribute("aria-label", "Remover o item " + n);
    });
  }
  function wire(row) {
    var rm = row.querySelector("[data-remove-line]");
    if (rm) {
      rm.hidden = false;
      rm.addEventListener("click", function () {
        if (body.rows.length > 1) row.remove(); else row.querySelectorAll("input").forEach(function (i) { i.value = ""; });
        number();
        recompute();
      });
    }
  }
  Array.prototype.forEach.call(body.rows, wire);
  var add = document.getElementById("adicionar-item");
  if (add) {
    add.hidden = false;
    add.addEventListener("click", function () {
      var row = body.rows[body.rows.length - 1].cloneNode(true);
      row.querySelectorAll("input").forEach(function (i) { i.value = ""; i.removeAttribute("aria-invalid"); i.removeAttribute("aria-describedby"); });
      row.querySelectorAll(".error").forEach(function (e) { e.remove(); });
      row.querySelector("output").value = "";
      body.appendChild(row);
      wire(row);
      number();
      row.querySelector("input[name='item']").focus();
    });
  }
  var more = document.querySelector("[data-more-lines]");
  if (more) more.hidden = true;
  table.addEventListener("input", recompute);
  table.addEventListener("change", recompute);
  if (freight) freight.addEventListener("input", recompute);
  recompute();
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

// On a phone a list's rows are cards: each cell says its column's name
// (what the table's header said above it), unless it holds only an
// action. Without this script the cards show the values alone.
document.querySelectorAll(".scroll table").forEach(function (table) {
  var head = table.tHead && table.tHead.rows[0];
  if (!head) return;
  var names = Array.prototype.map.call(head.cells, function (c) { return c.textContent.trim(); });
  Array.prototype.forEach.call(table.tBodies, function (body) {
    Array.prototype.forEach.call(body.rows, function (row) {
      Array.prototype.forEach.call(row.cells, function (cell, i) {
        if (cell.tagName !== "TD" || !names[i] || cell.querySelector("form, button, input, select")) return;
        cell.setAttribute("data-label", names[i]);
      });
    });
  });
});

// Cobrança bancária: the bank chosen behind a slot offers its own wallets
// (its option's data-group) and, Banco do Brasil, its wallet variation.
document.querySelectorAll("select[name$='-bank']").forEach(function (bank) {
  var slot = bank.name.slice(0, -"-bank".length);
  var wallet = bank.form.querySelector("select[name='" + slot + "-wallet']");
  var variation = bank.form.querySelector("[data-variation]");
  bank.addEventListener("change", function () {
    var chosen = bank.options[bank.selectedIndex];
    var wallets = (chosen.getAttribute("data-group") || "").split(",").filter(Boolean);
    if (wallet && wallets.length) {
      var was = wallet.value;
      wallet.textContent = "";
      wallets.forEach(function (w) {
        var o = document.createElement("option");
        o.value = o.textContent = w;
        o.selected = w === was;
        wallet.appendChild(o);
      });
    }
    if (variation) variation.hidden = bank.value !== "001";
  });
});
