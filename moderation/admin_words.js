// Words of the admin's own scripts (its date picker and its two-list selector
// for groups and permissions) that Django's Vietnamese catalogue lacks. Listed
// here only so that `make messages` keeps their translations in
// locale/vi/LC_MESSAGES/djangojs.po, which the admin's JavaScript catalogue
// reads before Django's (like admin_words.py for the templates). Never loaded.
/* global gettext, pgettext, ngettext */
export const DATE_PICKER = [
  gettext("Sunday"), gettext("Monday"), gettext("Tuesday"), gettext("Wednesday"),
  gettext("Thursday"), gettext("Friday"), gettext("Saturday"),
  pgettext("abbrev. day Sunday", "Sun"), pgettext("abbrev. day Monday", "Mon"),
  pgettext("abbrev. day Tuesday", "Tue"), pgettext("abbrev. day Wednesday", "Wed"),
  pgettext("abbrev. day Thursday", "Thur"), pgettext("abbrev. day Friday", "Fri"),
  pgettext("abbrev. day Saturday", "Sat"),
];
export const SELECT_FILTER = [
  gettext("Choose %s by selecting them and then select the \"Choose\" arrow button."),
  gettext("Choose all %s"), gettext("Choose selected %s"), gettext("Remove selected %s"),
  gettext("Remove %s by selecting them and then select the \"Remove\" arrow button."),
  gettext("Type into this box to filter down the list of selected %s."),
  gettext("(click to clear)"), gettext("Remove all %s"),
  ngettext("%s selected option not visible", "%s selected options not visible", 1),
];
