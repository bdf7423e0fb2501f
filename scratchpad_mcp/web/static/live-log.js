// The live log: ask for entries after the newest shown, every two seconds, and put each on top.
// Entries are added as text nodes only, so nothing an agent wrote can run here.
(function () {
  "use strict";
  var list = document.getElementById("entries");
  if (!list || !list.dataset.live) { return; }
  var after = Number(list.dataset.after) || 0;
  var source = list.dataset.source;

  function when(ms) {
    return new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
  }

  function add(entry) {
    var item = document.createElement("li");
    item.id = "e" + entry.id;
    item.className = "new";
    var id = document.createElement("span");
    id.className = "id";
    id.textContent = "#" + entry.id;
    var time = document.createElement("time");
    time.textContent = when(entry.created_at);
    var by = document.createElement("span");
    by.className = "by";
    by.textContent = entry.shown.by;
    var text = document.createElement("pre");
    text.textContent = entry.shown.entry;  // as the page shows it on a reload: control and bidi marks visible
    item.append(id, " ", time, " ", by, text);
    list.insertBefore(item, list.firstChild);
  }

  function poll() {
    fetch(source + "?after=" + after, { credentials: "same-origin", cache: "no-store" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (page) {
        if (page) {
          page.entries.forEach(add);
          after = page.last_entry_id;
        }
        window.setTimeout(poll, page && page.has_more ? 0 : 2000);
      })
      .catch(function () { window.setTimeout(poll, 5000); });
  }

  window.setTimeout(poll, 2000);
}());
