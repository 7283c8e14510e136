// Outside judges for what fincom emits, run by the Go tests
// (TestOutsideJudges) on the files they write to a directory:
//   *.rem / *.ret with *.json expectations: read by @banco-br/nodejs-cnab
//     with the layouts of @banco-br/cnab_yaml (FEBRABAN's generic CNAB 240
//     and the bank's own where the package has them: Santander's, Banco
//     do Brasil's, Caixa's SIGCB), each field fincom meant to write;
//   pix.json: every BR Code parsed by pix-utils;
//   boletos.json: every bar code and typeable line checked by
//     boleto-brasileiro-validator.
// Prints each disagreement and exits 1 when there is one.
'use strict';
const fs = require('fs');
const path = require('path');
const yaml = require('js-yaml');
const { makeLine } = require('@banco-br/nodejs-cnab/dist/lib/utils');
const { parsePix, hasError } = require('pix-utils');
const validator = require('boleto-brasileiro-validator');

const dir = process.argv[2];
const yamlDir = path.join(path.dirname(require.resolve('@banco-br/cnab_yaml/package.json')), 'cnab240');
let failures = 0;
const fail = (where, msg) => { failures++; console.log(`${where}: ${msg}`); };

// layout merges the bank's own fields over FEBRABAN's generic ones, as
// cnab_yaml lays them out (a bank file lists what differs).
function layout(bank, dirs, name) {
  const out = {};
  for (const d of dirs) {
    for (const base of [path.join(yamlDir, 'generic', d), bank ? path.join(yamlDir, bank, d) : null].filter(Boolean)) {
      const f = path.join(base, name + '.yml');
      if (fs.existsSync(f)) Object.assign(out, yaml.load(fs.readFileSync(f, 'utf8')));
    }
  }
  return out;
}
// exp.yaml_bank names the bank's own cnab_yaml layouts ('' when the
// package has none for its collection files: FEBRABAN's generic ones).
const read = (bank, dirs, name, line) => makeLine(layout(bank, dirs, name), line);
const eq = (where, field, got, want) => { if (String(got).trim() !== String(want)) fail(where, `${field} is ${JSON.stringify(got)}, want ${JSON.stringify(want)}`); };

for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.rem') || f.endsWith('.ret'))) {
  const exp = JSON.parse(fs.readFileSync(path.join(dir, f.replace(/\.re[mt]$/, '.json')), 'utf8'));
  const raw = fs.readFileSync(path.join(dir, f), 'latin1');
  if (!raw.endsWith('\r\n')) fail(f, 'does not end with CRLF');
  const lines = raw.split('\r\n').filter((l) => l !== '');
  lines.forEach((l, i) => { if (l.length !== 240) fail(`${f}:${i + 1}`, `${l.length} columns`); });
  const remessa = f.endsWith('.rem');
  const dirs = remessa ? ['', 'remessa'] : ['', 'retorno'];
  const h = read(exp.yaml_bank, dirs, 'header_arquivo', lines[0]);
  eq(`${f}:1`, 'codigo_banco', h.codigo_banco, exp.bank);
  eq(`${f}:1`, 'codigo_remessa_retorno', h.codigo_remessa_retorno, remessa ? '1' : '2');
  eq(`${f}:1`, 'numero_sequencial_arquivo', Number(h.numero_sequencial_arquivo), exp.sequence);
  eq(`${f}:1`, 'nome_empresa', h.nome_empresa, exp.firm);
  eq(`${f}:1`, 'versao_layout_arquivo', h.versao_layout_arquivo, exp.layout);
  for (const [k, v] of Object.entries(exp.header || {})) eq(`${f}:1`, k, h[k], v);
  const hl = read(exp.yaml_bank, dirs, 'header_lote', lines[1]);
  eq(`${f}:2`, 'tipo_registro', hl.tipo_registro, '1');
  if (exp.bank !== '341') eq(`${f}:2`, 'nome_empresa', hl.nome_empresa, exp.firm);
  if (remessa) for (const [k, v] of Object.entries(exp.batch || {})) eq(`${f}:2`, k, hl[k], v);
  let t = 0;
  for (let i = 2; i < lines.length - 2; i++) {
    const seg = lines[i][13];
    const where = `${f}:${i + 1}`;
    const title = exp.titles[t];
    if (remessa && seg === 'P') {
      const p = read(exp.yaml_bank, dirs, 'detalhe_segmento_p', lines[i]);
      eq(where, 'codigo_segmento', p.codigo_segmento, 'P');
      // Itaú's segment P places the title otherwise (its own manual);
      // its positions are held to the manual by TestLayoutsMatchManuals.
      if (title.our_p) eq(where, 'nosso_numero', p.nosso_numero.trim(), title.our_p);
      else if (title.our_tail && !p.nosso_numero.endsWith(title.our_tail)) fail(where, `nosso_numero ${p.nosso_numero} does not end with ${title.our_tail}`);
      for (const [k, v] of Object.entries(exp.p || {})) eq(where, k, p[k], v);
      if (title.our_tail && !p.numero_documento.startsWith(title.document.slice(0, p.numero_documento.length).trim())) fail(where, `numero_documento ${p.numero_documento}`);
      eq(where, 'vencimento', p.vencimento, title.due);
      eq(where, 'valor_titulo', Number(p.valor_titulo), title.cents);
      eq(where, 'codigo_ocorrencia', p.codigo_ocorrencia, title.movement);
      t++;
    } else if (remessa && seg === 'Q') {
      const title = exp.titles[t - 1];
      const q = read(exp.yaml_bank, dirs, 'detalhe_segmento_q', lines[i]);
      eq(where, 'nome', q.nome.slice(0, 30).trim(), title.payer.slice(0, 30).trim());
      eq(where, 'sacado_numero_inscricao', q.sacado_numero_inscricao.replace(/^0+/, ''), title.payer_id.replace(/^0+/, ''));
      eq(where, 'cep', q.cep, title.zip);
    } else if (remessa && seg === 'R') {
      const r = read(exp.yaml_bank, dirs, 'detalhe_segmento_r', lines[i]);
      eq(where, 'codigo_multa', r.codigo_multa, '2');
      eq(where, 'valor_multa', Number(r.valor_multa), 200);
    } else if (!remessa && seg === 'T') {
      const tt = read(exp.yaml_bank, dirs, 'detalhe_segmento_t', lines[i]);
      eq(where, 'codigo_movimento', tt.codigo_movimento, title.movement);
      if (!tt.nosso_numero.includes(title.our_full)) fail(where, `nosso_numero ${tt.nosso_numero} lacks ${title.our_full}`);
      eq(where, 'valor_titulo', Number(tt.valor_titulo), title.cents);
    } else if (!remessa && seg === 'U') {
      const u = read(exp.yaml_bank, dirs, 'detalhe_segmento_u', lines[i]);
      eq(where, 'valor_pago', Number(u.valor_pago), title.paid_cents);
      eq(where, 'data_ocorrencia', u.data_ocorrencia, title.occurred);
      t++;
    }
  }
  if (t !== exp.titles.length) fail(f, `${t} titles read, want ${exp.titles.length}`);
  const tl = read(exp.yaml_bank, dirs, 'trailer_lote', lines[lines.length - 2]);
  eq(`${f}:trailer`, 'qtde_registro_lote', Number(tl.qtde_registro_lote), lines.length - 2);
  const ta = read(exp.yaml_bank, dirs, 'trailer_arquivo', lines[lines.length - 1]);
  eq(`${f}:trailer`, 'qtde_registros', Number(ta.qtde_registros), lines.length);
  console.log(`${f}: ${lines.length} records read by @banco-br/nodejs-cnab`);
}

const pixFile = path.join(dir, 'pix.json');
if (fs.existsSync(pixFile)) {
  for (const c of JSON.parse(fs.readFileSync(pixFile, 'utf8'))) {
    const p = parsePix(c.code);
    if (hasError(p)) { fail('pix', `${c.code}: ${p.message}`); continue; }
    if (c.key !== undefined) eq('pix ' + c.key, 'pixKey', p.pixKey, c.key);
    if (c.url !== undefined) eq('pix ' + c.url, 'url', p.url, c.url);
    if (c.amount !== undefined) eq('pix ' + c.code.slice(0, 40), 'transactionAmount', Number(p.transactionAmount || 0).toFixed(2), c.amount);
    if (c.txid !== undefined) eq('pix ' + c.code.slice(0, 40), 'txid', p.txid, c.txid);
    eq('pix ' + c.code.slice(0, 40), 'type', p.type, c.url !== undefined ? 'DYNAMIC' : 'STATIC');
  }
  console.log('pix.json: every BR Code parsed by pix-utils');
}
const boletoFile = path.join(dir, 'boletos.json');
if (fs.existsSync(boletoFile)) {
  for (const b of JSON.parse(fs.readFileSync(boletoFile, 'utf8'))) {
    if (!validator.boletoBancarioCodigoBarras(b.barcode)) fail('boleto', `bar code ${b.barcode} refused`);
    if (!validator.boletoBancarioLinhaDigitavel(b.line)) fail('boleto', `typeable line ${b.line} refused`);
  }
  console.log('boletos.json: every boleto accepted by boleto-brasileiro-validator');
}
if (failures) { console.log(`${failures} disagreements`); process.exit(1); }
