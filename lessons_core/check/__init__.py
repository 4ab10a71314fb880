"""``lessons check``: the rules that must hold in every change, checked outside the hook.

``diff_lines`` reads what a change adds from git, ``forbidden`` finds the lines that
break a lesson's ``forbid`` pattern, ``report`` runs both and renders the findings.
"""
