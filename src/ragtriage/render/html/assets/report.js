/* ragtriage HTML report: question table, filters and detail view (the charts are SVG).
 * Every value from the inputs is inserted with textContent or as an attribute value set
 * through the DOM, never parsed as HTML. */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("rt-data").textContent);
  var PAGE = 200;
  var state = { run: 0, stage: "", tag: "", split: "", text: "", sort: null, desc: false, shown: PAGE, detail: null };
  var rows = [];

  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        if (key === "text") node.textContent = attrs[key];
        else if (key === "cls") node.className = attrs[key];
        else node.setAttribute(key, attrs[key]);
      });
    }
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }
  function badge(text, cls) { return el("span", { cls: "badge " + (cls || ""), text: text }); }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function stageClass(stage) { return stage === "ok" ? "ok" : "fail"; }
  function result(runIndex, qi) { return DATA.results[runIndex][qi]; }
  // Maps keyed by input text (IDs, tags) have no prototype: a key `constructor` or
  // `__proto__` is then an entry like any other, not a property of every object.
  function dict() { return Object.create(null); }
  function doc(id) { return Object.prototype.hasOwnProperty.call(DATA.docs, id) ? DATA.docs[id] : null; }

  /* ---- filters ---- */
  function fillSelect(select, values, labels) {
    values.forEach(function (value, i) {
      select.appendChild(el("option", { value: String(value), text: labels ? labels[i] : value }));
    });
  }
  function setupFilters() {
    var runSel = document.getElementById("f-run");
    fillSelect(runSel, DATA.runs.map(function (_, i) { return i; }), DATA.runs.map(function (r) { return r.name; }));
    var tags = dict(), splits = dict();
    DATA.questions.forEach(function (q) {
      (q.g || []).forEach(function (t) { tags[t] = true; });
      splits[q.s] = true;
    });
    fillSelect(document.getElementById("f-tag"), Object.keys(tags).sort());
    fillSelect(document.getElementById("f-split"), Object.keys(splits).sort());
    refreshStages();
    runSel.addEventListener("change", function () { state.run = Number(runSel.value); refreshStages(); update(); if (state.detail !== null) showDetail(state.detail, false); });
    [["f-stage", "stage"], ["f-tag", "tag"], ["f-split", "split"]].forEach(function (pair) {
      var node = document.getElementById(pair[0]);
      node.addEventListener("change", function () { state[pair[1]] = node.value; update(); });
    });
    var text = document.getElementById("f-text");
    text.addEventListener("input", function () { state.text = text.value.toLowerCase(); update(); });
  }
  function selectRun(ri) {
    state.run = ri;
    document.getElementById("f-run").value = String(ri);
    refreshStages();
    update();
  }
  function refreshStages() {
    var select = document.getElementById("f-stage");
    var counts = dict();
    DATA.results[state.run].forEach(function (r) { if (r.p) counts[r.p] = (counts[r.p] || 0) + 1; });
    while (select.options.length > 1) select.remove(1);
    var present = DATA.stages.filter(function (s) { return counts[s]; });
    fillSelect(select, present, present.map(function (s) { return s + " (" + counts[s] + ")"; }));
    if (!counts[state.stage]) state.stage = "";
    select.value = state.stage;
  }

  /* ---- question table ---- */
  var COLUMNS = [
    { name: "question", key: function (qi) { return DATA.questions[qi].id; } },
    { name: "text", key: function (qi) { return DATA.questions[qi].t; } },
    { name: "split", key: function (qi) { return DATA.questions[qi].s; } },
    { name: "tags", key: function (qi) { return (DATA.questions[qi].g || []).join(" "); } },
    { name: "outcome", key: function (qi) { return result(state.run, qi).o || ""; } },
    // A question without a primary stage (no result) has none to sort by: it sorts last.
    { name: "stage", key: function (qi) { var p = result(state.run, qi).p; return p ? DATA.stages.indexOf(p) : null; } },
  ].concat(DATA.measures.map(function (m, mi) {
    return { name: m[0], numeric: true, key: function (qi) { var v = result(state.run, qi).v[mi]; return v === null ? null : Number(v); } };
  }));

  function setupTable() {
    var head = document.getElementById("q-head");
    COLUMNS.forEach(function (col, ci) {
      // A zero-width space after each "_" lets long measure names wrap in a narrow column.
      var th = el("th", { text: col.name.replace(/_/g, "_\u200b"), title: "sort by " + col.name, "data-col": String(ci) });
      th.addEventListener("click", function () {
        if (state.sort === ci) state.desc = !state.desc; else { state.sort = ci; state.desc = false; }
        update();
      });
      head.appendChild(th);
    });
  }
  function matches(qi) {
    var q = DATA.questions[qi], r = result(state.run, qi);
    if (state.stage && r.p !== state.stage) return false;
    if (state.split && q.s !== state.split) return false;
    if (state.tag && (q.g || []).indexOf(state.tag) < 0) return false;
    if (state.text && q.id.toLowerCase().indexOf(state.text) < 0 && q.t.toLowerCase().indexOf(state.text) < 0) return false;
    return true;
  }
  function update() {
    rows = [];
    for (var qi = 0; qi < DATA.questions.length; qi++) if (matches(qi)) rows.push(qi);
    if (state.sort !== null) {
      var key = COLUMNS[state.sort].key, sign = state.desc ? -1 : 1;
      var keyed = rows.map(function (qi) { return [key(qi), qi]; });
      keyed.sort(function (a, b) {
        // Not-applicable values sort last in both directions.
        if (a[0] === null || b[0] === null) return a[0] === b[0] ? a[1] - b[1] : (a[0] === null ? 1 : -1);
        if (a[0] < b[0]) return -sign;
        if (a[0] > b[0]) return sign;
        return a[1] - b[1];
      });
      rows = keyed.map(function (pair) { return pair[1]; });
    }
    state.shown = PAGE;
    document.querySelectorAll("#q-head th").forEach(function (th) {
      var ci = Number(th.getAttribute("data-col"));
      th.className = ci === state.sort ? (state.desc ? "sorted desc" : "sorted asc") : "";
    });
    renderRows();
  }
  function renderRows() {
    var body = document.getElementById("q-body");
    clear(body);
    var fragment = document.createDocumentFragment();
    var limit = Math.min(rows.length, state.shown);
    for (var i = 0; i < limit; i++) fragment.appendChild(rowNode(rows[i]));
    body.appendChild(fragment);
    document.getElementById("q-count").textContent = rows.length + " of " + DATA.questions.length + " questions" + (limit < rows.length ? " (showing " + limit + ")" : "");
    var pager = document.getElementById("q-pager");
    clear(pager);
    if (limit < rows.length) {
      var more = el("button", { type: "button", text: "show " + Math.min(PAGE, rows.length - limit) + " more" });
      more.addEventListener("click", function () { state.shown += PAGE; renderRows(); });
      pager.appendChild(more);
    }
  }
  function rowNode(qi) {
    var q = DATA.questions[qi], r = result(state.run, qi);
    var tr = el("tr", { "data-qid": q.id, cls: "qrow" });
    var link = questionLink(q.id, null);
    tr.appendChild(el("td", null, link));
    tr.appendChild(el("td", { cls: "qtext", text: q.t, title: q.t }));
    tr.appendChild(el("td", { text: q.s }));
    tr.appendChild(el("td", { text: (q.g || []).join(", ") }));
    tr.appendChild(el("td", { text: r.o || "-" }));
    var stageCell = el("td", { cls: "stage" });
    if (r.p) stageCell.appendChild(badge(r.p, stageClass(r.p)));
    (r.s2 || []).forEach(function (s) { stageCell.appendChild(badge(s, "secondary")); });
    tr.appendChild(stageCell);
    // Values come as text, formatted once in Python as the terminal and Markdown print them.
    r.vt.forEach(function (t) { tr.appendChild(el("td", { cls: "num", text: t })); });
    return tr;
  }

  /* ---- detail view ---- */
  function flagBadges(flags) {
    var out = el("span", { cls: "marks" });
    DATA.flags.forEach(function (pair) {
      if (flags & pair[1]) out.appendChild(badge(pair[0], "m-" + pair[0].replace(/ /g, "-")));
    });
    return out;
  }
  function docText(id, recorded) {
    if (recorded !== null && recorded !== undefined) return recorded;
    var entry = doc(id);
    return entry ? entry[3] : "";
  }
  function docLabel(id) {
    var entry = doc(id);
    if (!entry) return "";
    var parts = [entry[0]];
    if (entry[2]) parts.push("version " + entry[2]);
    if (entry[1]) parts.push(entry[1]);
    return parts.join(" · ");
  }
  function section(title) { return el("div", { cls: "dsec" }, el("h3", { text: title })); }
  function table(headers) {
    // In a box of its own that scrolls sideways when the table is wider than the page.
    var t = el("table"), tr = el("tr");
    headers.forEach(function (h) { tr.appendChild(el("th", { text: h })); });
    t.appendChild(el("thead", null, tr));
    var tbody = el("tbody");
    t.appendChild(tbody);
    return [el("div", { cls: "scroll" }, t), tbody];
  }
  function row(tbody, cells) {
    var tr = el("tr");
    cells.forEach(function (c) { tr.appendChild(typeof c === "string" ? el("td", { text: c }) : el("td", null, c)); });
    tbody.appendChild(tr);
    return tr;
  }
  function showDetail(qi, scroll) {
    state.detail = qi;
    var q = DATA.questions[qi], r = result(state.run, qi);
    var box = document.getElementById("detail"), body = document.getElementById("d-body");
    document.getElementById("d-title").textContent = "Question " + q.id + " · run " + DATA.runs[state.run].name;
    clear(body);
    box.hidden = false;
    if (DATA.runs.length > 1) {
      var tabs = el("p", { cls: "tabs" });
      DATA.runs.forEach(function (run, ri) {
        var b = el("button", { type: "button", text: run.name, cls: ri === state.run ? "active" : "" });
        b.addEventListener("click", function () { selectRun(ri); showDetail(qi); });
        tabs.appendChild(b);
      });
      body.appendChild(tabs);
    }
    var head = section("Question");
    head.appendChild(el("p", { cls: "qfull", text: q.t }));
    head.appendChild(el("p", { cls: "muted", text: q.a + " · split " + q.s + ((q.g || []).length ? " · tags " + q.g.join(", ") : "") }));
    body.appendChild(head);

    var diag = section("Diagnosis");
    var verdict = el("p", { cls: "verdict" });
    if (r.p) verdict.appendChild(badge(r.p, stageClass(r.p)));
    (r.s2 || []).forEach(function (s) { verdict.appendChild(badge(s, "secondary")); });
    diag.appendChild(verdict);
    var why = el("ul", { cls: "why" });
    (r.w || []).forEach(function (f) {
      var li = el("li", null, el("b", { text: f[0] }), ": " + f[1]);
      if (f[2].length) li.appendChild(el("span", { cls: "ids", text: " [" + f[2].join(", ") + "]" }));
      why.appendChild(li);
    });
    // Without a primary stage the question was not diagnosed: the run has no result for it.
    var none = r.p ? "No stage failed." : "Not diagnosed (" + (r.o || "no diagnosis") + ").";
    if (!(r.w || []).length) why.appendChild(el("li", { text: none }));
    diag.appendChild(why);
    body.appendChild(diag);

    // A run with no entry for the question (--allow-missing) has no ranking, context or
    // answer to show: its sections say so instead of describing an empty result.
    var noResult = r.nr ? el("p", { cls: "muted", text: "No result: the run has no entry for this question." }) : null;
    function found(bit) { return r.nr ? "no result" : bit ? "yes" : "no"; }
    var ev = section("Required evidence");
    if ((q.ev || []).length) {
      var et = table(["group", "any of", "among candidates", "after reranking", "in context"]);
      q.ev.forEach(function (g, gi) {
        var bits = (r.gs || [])[gi] || 0;
        row(et[1], [String(gi + 1) + (g[0] ? " · " + g[0] : ""), g[1].join(" | "), found(bits & 1), found(bits & 2), found(bits & 4)]);
      });
      ev.appendChild(et[0]);
    } else ev.appendChild(el("p", { cls: "muted", text: "No required evidence." }));
    body.appendChild(ev);

    if (noResult) {
      ["Final ranking", "Context sent to the model", "Answer"].forEach(function (title) {
        var part = section(title);
        part.appendChild(noResult.cloneNode(true));
        body.appendChild(part);
      });
    } else {
      var rk = section("Final ranking (" + (r.rn || 0) + " items" + ((r.rk || []).length < (r.rn || 0) ? "; the top ones and any required item below them are shown" : "") + ")");
      var rt = table(["rank", "ID", "marks", "candidate rank", "document"]);
      (r.rk || []).forEach(function (item, index) {
        var candidate = item[2] ? String(item[2]) : el("span", { cls: "muted", text: "not a candidate" });
        var tr = row(rt[1], [String(item[3] || index + 1), el("code", { text: item[0] }), flagBadges(item[1]), candidate, docLabel(item[0])]);
        tr.className = "rank";
        tr.setAttribute("data-item", item[0]);
      });
      rk.appendChild(rt[0]);
      body.appendChild(rk);
      if (r.cd) {
        var cd = section("Candidates the reranker dropped");
        var cdt = table(["rank", "ID", "marks", "document"]);
        r.cd.forEach(function (item) {
          row(cdt[1], [String(item[2]), el("code", { text: item[0] }), flagBadges(item[1]), docLabel(item[0])]);
        });
        cd.appendChild(cdt[0]);
        body.appendChild(cd);
      }

      var cx = section("Context sent to the model");
      var ct = table(["ID", "marks", "text"]);
      (r.cx || []).forEach(function (item) {
        var tr = row(ct[1], [el("code", { text: item[0] }), flagBadges(item[1]), el("div", { cls: "doc", text: docText(item[0], item[2]) })]);
        tr.className = "ctx";
        tr.setAttribute("data-item", item[0]);
      });
      if ((r.cx || []).length) cx.appendChild(ct[0]); else cx.appendChild(el("p", { cls: "muted", text: "Empty context." }));
      body.appendChild(cx);

      var an = section("Answer (" + (r.o || "no outcome") + ")");
      an.appendChild(el("div", { cls: "answer", text: r.a === undefined ? "(no answer recorded)" : r.a }));
      if (r.cl) {
        var clt = table(["claim", "text", "citations", "support label", "supported by"]);
        var context = dict();
        (r.cx || []).forEach(function (item) { context[item[0]] = true; });
        r.cl.forEach(function (c) {
          var cites = el("span");
          c[2].forEach(function (id) { cites.appendChild(badge(id, context[id] ? "cite" : "cite bad")); });
          if (!c[2].length) cites.appendChild(el("span", { cls: "muted", text: "none" }));
          var label = el("span", null, badge(c[3], "l-" + c[3]));
          if (c[5]) label.appendChild(el("span", { cls: "muted labeller", text: " by " + c[5] + ((c[6] || []).length ? " " + c[6].join(", ") : "") }));
          var tr = row(clt[1], [c[0], c[1], cites, label, c[4].join(", ")]);
          tr.className = "claim";
          tr.setAttribute("data-claim", c[0]);
          tr.setAttribute("data-label", c[3]);
        });
        an.appendChild(clt[0]);
      } else an.appendChild(el("p", { cls: "muted", text: "Claims not extracted." }));
      body.appendChild(an);
    }

    var fs = section("Reference facts");
    if ((q.f || []).length) {
      var ft = table(["fact", "text", "verdict"]);
      q.f.forEach(function (f, fi) {
        var s = (r.fs || [])[fi] || "unlabelled";
        var shown = s === "covered" ? "covered" : s === "not_covered" ? (r.fn ? "not covered (" + r.fn + ")" : "missing") : s;
        var tr = row(ft[1], [f[0], f[1] || "", r.nr ? "no result" : badge(shown, "l-" + s)]);
        tr.className = "fact";
        tr.setAttribute("data-state", s);
      });
      fs.appendChild(ft[0]);
    } else fs.appendChild(el("p", { cls: "muted", text: "No reference facts." }));
    body.appendChild(fs);
    // Opened from the URL on load, the detail is already at the top of the page: scrolling
    // there while the page loads leaves headless screenshots blank.
    if (scroll !== false) box.scrollIntoView();
  }
  function questionLink(id, runIndex) {
    var href = "#q=" + encodeURIComponent(id);
    var link = el("a", { href: href, text: id });
    link.addEventListener("click", function (event) {
      if (runIndex !== null && runIndex !== state.run) selectRun(runIndex);
      // The same hash again fires no hashchange: show the question directly.
      if (location.hash === href) { event.preventDefault(); fromHash(); }
    });
    return link;
  }
  function fromHash(scroll) {
    var hash = location.hash;
    if (hash.indexOf("#q=") !== 0) return;
    var id;
    // A fragment that is not valid percent-encoding names no question: show the table.
    try { id = decodeURIComponent(hash.slice(3)); } catch (e) { if (e instanceof URIError) return; throw e; }
    for (var qi = 0; qi < DATA.questions.length; qi++) if (DATA.questions[qi].id === id) { showDetail(qi, scroll); return; }
  }

  /* ---- comparison ---- */
  function changeRow(c) {
    // [run index, run label, question ID, status, base stage, stage,
    //  [[metric, base text, candidate text, status]]]
    var values = el("span");
    c[6].forEach(function (v) {
      values.appendChild(el("span", { cls: "vchange " + (v[3] === "improved" ? "better" : "worse"), text: v[0] + " " + v[1] + "→" + v[2] }));
    });
    var tr = el("tr", { cls: "change " + c[3], "data-qid": c[2], "data-status": c[3] });
    tr.appendChild(el("td", { text: c[1] }));
    tr.appendChild(el("td", null, questionLink(c[2], c[0])));
    tr.appendChild(el("td", null, badge(c[3], c[3])));
    tr.appendChild(el("td", { text: (c[4] || "-") + " → " + (c[5] || "-") }));
    tr.appendChild(el("td", null, values));
    return tr;
  }
  function setupChanges() {
    var tableNode = document.getElementById("changes-table");
    if (!tableNode) return;
    var body = tableNode.querySelector("tbody");
    var counts = dict();
    DATA.changes.forEach(function (c) { counts[c[3]] = (counts[c[3]] || 0) + 1; });
    document.getElementById("changes-count").textContent = ["regressed", "mixed", "improved", "changed"].map(function (s) { return (counts[s] || 0) + " " + s; }).join(" · ");
    var shown = 0;
    var more = el("button", { type: "button" });
    function showMore() {
      var fragment = document.createDocumentFragment();
      var limit = Math.min(DATA.changes.length, shown + PAGE);
      for (; shown < limit; shown++) fragment.appendChild(changeRow(DATA.changes[shown]));
      body.appendChild(fragment);
      more.textContent = "show " + Math.min(PAGE, DATA.changes.length - shown) + " more changes";
      more.hidden = shown >= DATA.changes.length;
    }
    more.addEventListener("click", showMore);
    tableNode.parentNode.insertBefore(more, tableNode.nextSibling);
    showMore();
  }

  setupFilters();
  setupTable();
  update();
  setupChanges();
  window.addEventListener("hashchange", function () { fromHash(true); });
  fromHash(false);
  document.body.setAttribute("data-ready", "true");
})();
