// Filters the findings by severity and family. Without this script every
// finding is shown; nothing here reads from or writes to the network.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  if (!form) { return; }
  var groups = document.querySelectorAll(".group");
  var counter = document.getElementById("shown");

  function checked(name) {
    var out = {};
    var boxes = form.querySelectorAll("input[name='" + name + "']");
    for (var i = 0; i < boxes.length; i++) {
      out[boxes[i].value] = boxes[i].checked;
    }
    return out;
  }

  function apply() {
    var sev = checked("severity");
    var fam = checked("family");
    var shown = 0;
    for (var i = 0; i < groups.length; i++) {
      var g = groups[i];
      var visible = sev[g.getAttribute("data-severity")] !== false && fam[g.getAttribute("data-family")] !== false;
      g.hidden = !visible;
      if (visible) { shown++; }
    }
    if (counter) { counter.textContent = String(shown); }
  }

  form.addEventListener("change", apply);
  apply();
})();
