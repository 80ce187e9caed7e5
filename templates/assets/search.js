// skillcat catalog: search as you type and the type filter on the home
// pages. Plain JavaScript, no dependencies, nothing inline (the pages run
// under a strict CSP), nothing from another origin.
//
// The search index is sharded (build/searchindex.go writes it): a small
// manifest, index shards of the tokens that start with one prefix, and
// files of result cards. A query fetches the manifest, the shards its
// words need and the cards it shows, nothing else; each file is fetched
// once. Every word of the query must begin a word of the skill's id,
// name, summary, tags, provider or description; matches in the id or name
// rank first, then tags and provider, summary, description; ties keep the
// listing's order. A word whose prefix would need more than prefixBudget
// bytes of shards (a single letter in a big catalog) matches whole words
// only, and the status says so.
//
// The query and the type live in the URL (?q=…&type=…), so a search can be
// shared and survives a reload. Without JavaScript the page is a plain
// listing with numbered pages, and the type filter links to the type pages.
(function () {
  "use strict";

  var script = document.currentScript;
  var form = document.getElementById("search");
  var input = document.getElementById("q");
  var list = document.getElementById("skills");
  var filters = document.getElementById("filters");
  if (!script || !form || !input || !list || !filters || !document.body.classList.contains("page-home")) return;

  // The search index's manifest, and the folder its files are named in.
  var manifestURL = new URL(form.getAttribute("data-index") || "search/manifest.json", location.href);
  var indexDir = new URL("./", manifestURL);
  // The relative path to the root, as the page's own links are written.
  var rel = form.getAttribute("data-root") || "";
  var status = document.getElementById("status");
  var empty = document.getElementById("empty");
  var clear = document.getElementById("clear");
  var errorBox = document.getElementById("search-error");
  var more = document.getElementById("more");
  var moreButton = document.getElementById("more-button");
  var pagination = document.querySelector("nav.pagination");
  var listing = Array.prototype.slice.call(list.children); // the page's own cards
  var complete = !pagination; // the page lists every skill
  var statusText = status ? status.textContent : "";
  var html = document.documentElement;

  var batch = 24; // result cards shown at once
  var prefixBudget = 640 * 1024; // bytes of shards one word's prefix may fetch

  // ---- Text -------------------------------------------------------------

  // normalize folds case and strips accents, as the build does: lower
  // case, NFKD without U+0300–U+036F, lower case again (NFKD makes capitals
  // of ℍ, ᴬ, 𝐀), and ς as σ (toLowerCase writes a word-final Σ as ς).
  function normalize(s) {
    s = String(s || "").toLowerCase();
    if (s.normalize) s = s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
    return s.replace(/\u03c2/g, "\u03c3");
  }

  var tokenRunes = 32;
  function tokens(s) {
    var m = normalize(s).match(/[\p{L}\p{N}]+/gu) || [];
    return m.map(function (t) {
      var cp = Array.from(t);
      return cp.length > tokenRunes ? cp.slice(0, tokenRunes).join("") : t;
    });
  }

  function plural(n) { return n === 1 ? "skill" : "skills"; }
  function fmt(n) { return n.toLocaleString("en-US"); }

  // ---- Fetching ---------------------------------------------------------

  var manifest = null;
  var manifestPromise = null;
  var files = {}; // path → {promise, signal}

  // get fetches a file of the index once. A fetch made for a query that was
  // overtaken is aborted (signal), so that typing fast does not queue card
  // files no one will see; a later query fetches the file again.
  function get(path, kind, signal) {
    var f = files[path];
    if (!f || (f.signal && f.signal.aborted)) {
      var url = new URL(path, indexDir);
      if (manifest) url.search = "v=" + manifest.build;
      var p = fetch(url.href, { credentials: "same-origin", signal: signal }).then(function (r) {
        if (!r.ok) throw new Error("search/" + path + ": HTTP " + r.status);
        return kind === "json" ? r.json() : r.arrayBuffer();
      }).catch(function (err) {
        if (files[path] && files[path].promise === p) delete files[path]; // try again on the next query
        if (!(err instanceof Error) || err.message.indexOf("search/") !== 0) {
          err = new Error("search/" + path + ": " + (err && err.message ? err.message : "failed"));
        }
        throw err;
      });
      f = files[path] = { promise: p, signal: signal };
    }
    return f.promise;
  }

  function loadManifest() {
    if (manifest) return Promise.resolve(manifest);
    if (!manifestPromise) {
      manifestPromise = fetch(manifestURL.href, { credentials: "same-origin", cache: "no-cache" })
        .then(function (r) {
          if (!r.ok) throw new Error("search/manifest.json: HTTP " + r.status);
          return r.json();
        })
        .then(function (m) {
          var raw = atob(m.type_map || "");
          var types = new Uint8Array(m.docs);
          for (var i = 0; i < m.docs; i++) types[i] = (raw.charCodeAt(i >> 2) >> ((i & 3) * 2)) & 3;
          m.docTypes = types;
          tokenRunes = m.token_runes || tokenRunes;
          manifest = m;
          return m;
        }, function (err) {
          manifestPromise = null;
          if (!(err instanceof Error) || err.message.indexOf("search/") !== 0) {
            err = new Error("search/manifest.json: " + (err && err.message ? err.message : "failed"));
          }
          throw err;
        });
    }
    return manifestPromise;
  }

  // A shard, decoded: its tokens (sorted) and where each one's postings
  // start in the bytes.
  var shards = {};
  function loadShard(ref) {
    var file = ref[1];
    if (shards[file]) return Promise.resolve(shards[file]);
    return get(file, "bin").then(function (buf) {
      if (shards[file]) return shards[file];
      var b = new Uint8Array(buf);
      var dec = new TextDecoder();
      var pos = 0;
      function uvarint() {
        var x = 0, s = 1, c;
        do {
          c = b[pos++];
          x += (c & 0x7f) * s;
          s *= 128;
        } while (c & 0x80);
        return x;
      }
      var toks = [], at = [];
      while (pos < b.length) {
        var n = uvarint();
        toks.push(dec.decode(b.subarray(pos, pos + n)));
        pos += n;
        var count = uvarint();
        at.push(pos, count);
        for (var k = 0; k < count; k++) { while (b[pos++] & 0x80); }
      }
      var sh = { tokens: toks, at: at, bytes: b, uvarint: function (p) { pos = p; return uvarint(); }, pos: function () { return pos; } };
      shards[file] = sh;
      return sh;
    });
  }

  // eachPosting calls fn(doc, fieldClass) for token i of a shard.
  function eachPosting(sh, i, fn) {
    var p = sh.at[2 * i], count = sh.at[2 * i + 1];
    var doc = 0;
    for (var k = 0; k < count; k++) {
      var v = sh.uvarint(p);
      p = sh.pos();
      doc += Math.floor(v / 4);
      fn(doc, v & 3);
    }
  }

  // plan says which shards a word needs: the one whose prefix is the
  // longest prefix of the word, and every shard of a longer prefix that
  // starts with the word. Over the budget, the word matches whole words
  // only, which the first shard holds.
  function plan(word) {
    var best = null, deeper = [], size = 0;
    manifest.shards.forEach(function (s) {
      var p = s[0];
      if (word.lastIndexOf(p, 0) === 0 && (!best || p.length > best[0].length)) best = s;
      if (p.length > word.length && p.lastIndexOf(word, 0) === 0) {
        deeper.push(s);
        size += s[2];
      }
    });
    var need = best ? [best] : [];
    var exact = best && size + best[2] > prefixBudget;
    if (!exact) need = need.concat(deeper);
    return { word: word, shards: need, exact: !!exact };
  }

  var weights = [1, 2, 4, 8]; // description, summary, tag or provider, id or name

  // match scores every document holding each word; it returns the
  // matching documents, best first.
  function match(plans, loaded) {
    var n = manifest.docs;
    var total = new Float64Array(n);
    var hits = new Uint8Array(n);
    var first = [];
    plans.forEach(function (pl, w) {
      var best = new Float64Array(n);
      var touched = [];
      pl.shards.forEach(function (ref) {
        var sh = loaded[ref[1]];
        var toks = sh.tokens;
        // Tokens are sorted: find the first that could start with the word.
        var lo = 0, hi = toks.length;
        while (lo < hi) {
          var mid = (lo + hi) >> 1;
          if (toks[mid] < pl.word) lo = mid + 1; else hi = mid;
        }
        for (var i = lo; i < toks.length; i++) {
          var t = toks[i];
          if (t.lastIndexOf(pl.word, 0) !== 0) break;
          var whole = t.length === pl.word.length;
          if (pl.exact && !whole) break;
          eachPosting(sh, i, function (doc, cls) {
            var v = weights[cls] * (whole ? 1.5 : 1);
            if (best[doc] === 0) touched.push(doc);
            if (v > best[doc]) best[doc] = v;
          });
        }
      });
      touched.forEach(function (doc) {
        if (hits[doc] === w) {
          hits[doc] = w + 1;
          total[doc] += best[doc];
        }
      });
      if (w === 0) first = touched;
    });
    var out = first.filter(function (d) { return hits[d] === plans.length; });
    out.sort(function (a, b) { return total[b] - total[a] || a - b; });
    return out;
  }

  // cards fetches the card data of docs and returns them in order.
  function cards(docs, signal) {
    var per = manifest.docs_per_file;
    var need = {};
    docs.forEach(function (d) { need[Math.floor(d / per)] = true; });
    var keys = Object.keys(need);
    return Promise.all(keys.map(function (k) { return get("docs/" + k + ".json", "json", signal); })).then(function (chunks) {
      var byChunk = {};
      keys.forEach(function (k, i) { byChunk[k] = chunks[i]; });
      return docs.map(function (d) { return byChunk[Math.floor(d / per)][d % per]; });
    });
  }

  // ---- The page ---------------------------------------------------------

  // The type links become toggle buttons; their labels name the types.
  var labels = {};
  var buttons = [];
  Array.prototype.forEach.call(filters.querySelectorAll("a.filter"), function (a) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "filter";
    var t = a.getAttribute("data-type") || "";
    b.setAttribute("data-type", t);
    b.innerHTML = a.innerHTML;
    labels[t] = a.firstChild ? a.firstChild.textContent.trim() : t;
    var c = b.querySelector(".count");
    b.setAttribute("data-total", c ? c.textContent : "");
    a.parentNode.replaceChild(b, a);
    buttons.push(b);
  });
  var types = buttons.map(function (b) { return b.getAttribute("data-type"); });
  var total = 0;
  buttons.forEach(function (b) { if (!b.getAttribute("data-type")) total = parseInt(b.getAttribute("data-total"), 10) || 0; });

  var params = new URLSearchParams(location.search);
  var type = params.get("type") || "";
  if (types.indexOf(type) < 0) type = "";
  input.value = params.get("q") || "";
  form.hidden = false;

  // card builds a result card with the same markup as the listing's.
  function card(row) {
    var id = row[0], name = row[1], summary = row[2], t = row[3], access = row[4], version = row[5], provider = row[6], tags = row[7] || [];
    function el(tag, cls, text) {
      var e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text !== undefined) e.textContent = text;
      return e;
    }
    var li = el("li", "card");
    li.setAttribute("data-id", id);
    li.setAttribute("data-type", t);
    var badges = el("p", "card-badges");
    badges.appendChild(el("span", "badge type-" + t, labels[t] || t));
    badges.appendChild(el("span", "badge access-" + access, access === "restricted" ? "Restricted" : "Public"));
    li.appendChild(badges);
    var h = el("h3", "card-title");
    var a = el("a", "", name);
    a.href = rel + "skills/" + id + "/";
    h.appendChild(a);
    li.appendChild(h);
    li.appendChild(el("p", "card-summary", summary));
    var meta = el("p", "card-meta");
    meta.appendChild(el("span", "card-provider", provider));
    meta.appendChild(document.createTextNode(" "));
    meta.appendChild(el("span", "card-version", "v" + version));
    li.appendChild(meta);
    if (tags.length) {
      var ul = el("ul", "tags");
      ul.setAttribute("aria-label", "Tags");
      tags.forEach(function (tag) {
        var tl = el("li");
        var ta = el("a", "", tag);
        ta.href = rel + "?q=" + encodeURIComponent(tag);
        tl.appendChild(ta);
        ul.appendChild(tl);
      });
      li.appendChild(ul);
    }
    return li;
  }

  function setStatus(msg) {
    if (status && status.textContent !== msg) status.textContent = msg;
  }

  function setCounts(perType, all) {
    buttons.forEach(function (b) {
      var t = b.getAttribute("data-type");
      b.setAttribute("aria-pressed", String(t === type));
      var c = b.querySelector(".count");
      if (!c) return;
      c.textContent = perType ? String(t ? perType[t] || 0 : all) : b.getAttribute("data-total");
    });
  }

  function showListing() {
    var same = list.children.length === listing.length && listing.every(function (c, i) { return list.children[i] === c; });
    if (!same) {
      list.textContent = "";
      listing.forEach(function (c) { list.appendChild(c); });
    }
    listing.forEach(function (c) { if (c.hidden) c.hidden = false; });
    if (pagination) pagination.hidden = false;
    if (more) more.hidden = true;
  }

  function updateURL() {
    var p = new URLSearchParams();
    var q = input.value.trim();
    if (q) p.set("q", q);
    if (type) p.set("type", type);
    var qs = p.toString();
    history.replaceState(null, "", location.pathname + (qs ? "?" + qs : "") + location.hash);
  }

  function fail(err) {
    html.setAttribute("data-search", "error");
    if (errorBox) {
      errorBox.textContent = "Search is not available right now: part of the search index could not be loaded (" +
        (err && err.message ? err.message : "unknown error") + "). The listing below still works; try again in a moment.";
      errorBox.hidden = false;
    }
    showListing();
    setCounts(null, 0);
    setStatus(statusText);
    if (empty) empty.hidden = true;
  }

  var seq = 0;
  var results = []; // the current query's matching documents, best first
  var shown = 0;
  var label = "";
  var lastExact = []; // words matched whole, for "Show more"
  var pendingCards = null; // aborts the card files of an overtaken query

  // apply runs the current query and type, and shows the result.
  function apply(toURL) {
    if (toURL) updateURL();
    var mine = ++seq;
    if (pendingCards) pendingCards.abort();
    pendingCards = window.AbortController ? new AbortController() : null;
    var q = input.value.trim();
    var words = tokens(q);
    label = type ? " " + (labels[type] || type) : "";
    if (errorBox) errorBox.hidden = true;
    if (!words.length && !type) {
      showListing();
      setCounts(null, 0);
      setStatus(statusText);
      if (empty) empty.hidden = true;
      html.setAttribute("data-search", manifest ? "ready" : "idle");
      return Promise.resolve();
    }
    if (!words.length && complete) {
      // Every skill is on this page: filter its cards, fetching nothing.
      showListing();
      var n = 0;
      listing.forEach(function (c) {
        var show = c.getAttribute("data-type") === type;
        if (show) n++;
        c.hidden = !show;
      });
      setCounts(null, 0);
      setStatus(n ? "Showing " + fmt(n) + label + " " + plural(n) + " of " + fmt(total) : "No" + label + " skills yet");
      if (empty) empty.hidden = n !== 0;
      html.setAttribute("data-search", "ready");
      return Promise.resolve();
    }
    html.setAttribute("data-search", "loading");
    return loadManifest().then(function (m) {
      var plans = words.map(plan);
      var need = {};
      plans.forEach(function (pl) { pl.shards.forEach(function (s) { need[s[1]] = s; }); });
      var refs = Object.keys(need).map(function (k) { return need[k]; });
      return Promise.all(refs.map(loadShard)).then(function (loaded) {
        if (mine !== seq) return;
        var byFile = {};
        refs.forEach(function (r, i) { byFile[r[1]] = loaded[i]; });
        var docs;
        if (words.length) {
          docs = match(plans, byFile);
        } else {
          docs = [];
          for (var d = 0; d < m.docs; d++) docs.push(d);
        }
        var perType = {};
        var typed = [];
        docs.forEach(function (d) {
          var t = m.types[m.docTypes[d]];
          perType[t] = (perType[t] || 0) + 1;
          if (!type || t === type) typed.push(d);
        });
        setCounts(perType, docs.length);
        results = typed;
        shown = 0;
        var exact = plans.filter(function (pl) { return pl.exact; }).map(function (pl) { return pl.word; });
        return showMore(mine, q, exact);
      });
    }).catch(function (err) {
      if (mine === seq) fail(err);
    });
  }

  // showMore shows the next batch of results.
  function showMore(mine, q, exact) {
    var next = results.slice(shown, shown + batch);
    return cards(next, pendingCards && pendingCards.signal).then(function (rows) {
      if (mine !== seq) return;
      if (shown === 0) list.textContent = "";
      rows.forEach(function (r) { list.appendChild(card(r)); });
      shown += rows.length;
      if (pagination) pagination.hidden = true;
      if (more) more.hidden = shown >= results.length;
      var n = results.length;
      var what = q ? " for “" + q + "”" : "";
      var msg;
      if (n === 0) msg = "No" + label + " skills match" + (q ? " “" + q + "”" : "");
      else if (shown < n) msg = "Showing 1–" + fmt(shown) + " of " + fmt(n) + label + " " + plural(n) + what;
      else msg = "Showing " + fmt(n) + label + " " + plural(n) + " of " + fmt(total) + what;
      if (exact && exact.length) msg += " (whole words only for “" + exact.join("”, “") + "”: type more letters to match words that start with it)";
      setStatus(msg);
      if (empty) empty.hidden = n !== 0;
      html.setAttribute("data-search", "ready");
      lastExact = exact;
    });
  }
  if (moreButton) {
    moreButton.addEventListener("click", function () {
      var mine = seq;
      var before = shown;
      showMore(mine, input.value.trim(), lastExact).then(function () {
        // Move focus to the first new card, so the keyboard follows.
        var c = list.children[before];
        var a = c && c.querySelector("a");
        if (a) a.focus();
      }, function (err) {
        if (mine === seq) fail(err);
      });
    });
  }

  input.addEventListener("focus", function () { loadManifest().catch(function () {}); });
  input.addEventListener("pointerenter", function () { loadManifest().catch(function () {}); });

  var pending = 0;
  input.addEventListener("input", function () {
    // Run once per frame, not once per key.
    if (pending) return;
    pending = window.requestAnimationFrame(function () {
      pending = 0;
      apply(true);
    });
  });
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    apply(true);
  });
  buttons.forEach(function (b) {
    b.addEventListener("click", function () {
      var t = b.getAttribute("data-type");
      type = t === type ? "" : t;
      apply(true);
    });
  });
  if (clear) {
    clear.addEventListener("click", function () {
      input.value = "";
      type = "";
      apply(true);
      input.focus();
    });
  }
  // A tag on a card searches for that tag, without leaving the page.
  list.addEventListener("click", function (ev) {
    var a = ev.target.closest ? ev.target.closest(".tags a") : null;
    if (!a || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    input.value = a.textContent;
    apply(true);
    input.focus();
  });
  // "/" jumps to the search box, as on many sites.
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var t = ev.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    ev.preventDefault();
    input.focus();
  });

  html.setAttribute("data-search", "idle");
  apply(false);
})();
