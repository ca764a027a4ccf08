"""The fixed wording of reports, per language."""

from __future__ import annotations

HEADINGS: dict[str, dict[str, str]] = {
    "en": {
        "abstained": "The sources read do not answer: {question}",
        "answer": "Answer",
        "background": "Background",
        "insights": "Key insights",
        "evidence": "Evidence and data",
        "risks": "Risks and open questions",
        "references": "References",
        "limits": "Limits of this report",
        "established": "Established",
        "inferred": "Inferred",
        "unknown": "Unknown",
        "fallback": "fallback source",
        "none": "No sources were read.",
        "none_cited": "No source read by this run was cited.",
        "thin": (
            "Evidence stayed thin: after {rounds} round(s), {relevant} of {total} sources were judged "
            "relevant to "
            "their task ({score:.0f}% per task on average; a report is trusted from {threshold:.0f}%)."
        ),
        "coverage": "The cited passage closest to the question holds {held} of its {terms} key terms.",
        "relevance": "{relevant} of {total} sources judged relevant",
        "missing_bridge": "Still missing — the bridge: no passage read answers “{what}”.",
        "missing_bridge_none": (
            "Still missing — the bridge: no passage read answers “{what}”, and none bears on the question."
        ),
        "missing_hop": (
            "Still missing — the second hop: no sentence read states outright “{what}” (the closest "
            "are quoted above)."
        ),
        "missing_answer": (
            "Still missing: no sentence read states the answer outright (the closest are quoted above)."
        ),
        "missing_answer_none": "Still missing: no passage read bears on the question.",
        "other_read": "{count} other passage(s) read, not cited",
        "on_question": "{count} on the question: {titles}",
        "off_question": "{count} off the question, not listed",
        "skipped": "Skipped task {id} ({title}): {reason}.",
        "fallback_used": "{count} source(s) came from a fallback search engine and are marked as such.",
        "no_evidence": "{title}: no evidence was found for this task.",
        "off_topic": "The passages this task read were not about the question (or were quoted above).",
        "removed": "{count} citation(s) naming no source read by this run were removed.",
        "dropped_insights": "{count} insight(s) left out: the passage they cite does not support them.",
        "dropped_prose": "{count} sentence(s) of the model's prose left out: no source read states them.",
        "model_failed": (
            "The model failed at {count} step(s) ({steps}): code stood in for it there, so those parts "
            "rest on the quoted evidence alone, with no model judgement."
        ),
        "unverified": "The answer is unverified: no sentence of the sources read states it.",
        "unverified_mark": "unverified",
        "evidence_for": "From",
        "unconfirmed": "Closest reading, not confirmed by the evidence checks",
        "options_read": "What each option's own page says",
        "no_own_page": "no page of its own among the sources read",
        "via": "via",
        "gaps": "Terms of the question no source contained: {terms}.",
        "task": "Task {id}: {title}",
    },
    "zh": {
        "abstained": "已读来源没有回答：{question}",
        "answer": "答案",
        "background": "背景概览",
        "insights": "核心洞见",
        "evidence": "证据与数据",
        "risks": "风险与挑战",
        "references": "参考来源",
        "limits": "本报告的局限",
        "established": "已证实",
        "inferred": "推断",
        "unknown": "未知",
        "fallback": "备用来源",
        "none": "本次运行没有读取任何来源。",
        "none_cited": "本次运行读取的来源均未被引用。",
        "thin": (
            "证据不足：经过 {rounds} 轮，{total} 个来源中有 {relevant} 个被判定与其任务相关"
            "（每个任务平均 {score:.0f}%，阈值 {threshold:.0f}%）。"
        ),
        "coverage": "与问题最接近的被引段落包含问题 {terms} 个关键词中的 {held} 个。",
        "relevance": "{total} 个来源中 {relevant} 个被判定相关",
        "missing_bridge": "仍缺：桥接环节——没有已读段落回答“{what}”。",
        "missing_bridge_none": "仍缺：桥接环节——没有已读段落回答“{what}”，也没有段落与问题相关。",
        "missing_hop": "仍缺：第二跳——没有已读句子直接陈述“{what}”（最接近的句子已在上文引用）。",
        "missing_answer": "仍缺：没有已读句子直接陈述答案（最接近的句子已在上文引用）。",
        "missing_answer_none": "仍缺：没有已读段落与问题相关。",
        "other_read": "另读 {count} 个段落，未引用",
        "on_question": "其中 {count} 个与问题相关：{titles}",
        "off_question": "{count} 个与问题无关，未列出",
        "skipped": "已跳过任务 {id}（{title}）：{reason}。",
        "fallback_used": "{count} 个来源来自备用搜索引擎，已标注。",
        "no_evidence": "{title}：此任务未找到证据。",
        "off_topic": "此任务读取的段落与问题无关（或已在上文引用）。",
        "removed": "已移除 {count} 个不对应任何已读来源的引用。",
        "dropped_insights": "已略去 {count} 条洞见：其引用的段落不支持该说法。",
        "dropped_prose": "已略去模型所写的 {count} 句话：没有任何已读来源陈述它们。",
        "model_failed": (
            "模型在 {count} 个步骤（{steps}）中调用失败：这些部分由代码代为完成，"
            "仅依据引用的证据，没有模型的判断。"
        ),
        "unverified": "答案未经证实：已读来源中没有句子陈述它。",
        "unverified_mark": "未经证实",
        "evidence_for": "出处",
        "unconfirmed": "最接近的解读（未经证据核实）",
        "options_read": "各选项自身页面所述",
        "no_own_page": "所读来源中没有它自己的页面",
        "via": "经由",
        "gaps": "来源中未出现的问题关键词：{terms}。",
        "task": "任务 {id}：{title}",
    },
    "de": {
        "abstained": "Die gelesenen Quellen beantworten nicht: {question}",
        "answer": "Antwort",
        "background": "Hintergrund",
        "insights": "Wichtigste Erkenntnisse",
        "evidence": "Belege und Daten",
        "risks": "Risiken und offene Fragen",
        "references": "Quellen",
        "limits": "Grenzen dieses Berichts",
        "established": "Belegt",
        "inferred": "Gefolgert",
        "unknown": "Unbekannt",
        "fallback": "Ersatzquelle",
        "none": "Es wurden keine Quellen gelesen.",
        "none_cited": "Keine der gelesenen Quellen wurde zitiert.",
        "thin": (
            "Die Belege blieben dünn: Nach {rounds} Runde(n) wurden {relevant} von {total} Quellen als "
            "relevant für "
            "ihre Aufgabe beurteilt ({score:.0f}% je Aufgabe im Mittel; vertraut wird ab {threshold:.0f}%)."
        ),
        "coverage": (
            "Die zitierte Passage, die der Frage am nächsten kommt, enthält {held} ihrer {terms} "
            "Schlüsselbegriffe."
        ),
        "relevance": "{relevant} von {total} Quellen als relevant beurteilt",
        "missing_bridge": "Es fehlt noch — die Brücke: Keine gelesene Passage beantwortet „{what}“.",
        "missing_bridge_none": (
            "Es fehlt noch — die Brücke: Keine gelesene Passage beantwortet „{what}“, und keine "
            "betrifft die Frage."
        ),
        "missing_hop": (
            "Es fehlt noch — der zweite Schritt: Kein gelesener Satz sagt ausdrücklich „{what}“ (die "
            "nächsten sind oben zitiert)."
        ),
        "missing_answer": (
            "Es fehlt noch: Kein gelesener Satz nennt die Antwort ausdrücklich (die nächsten sind oben "
            "zitiert)."
        ),
        "missing_answer_none": "Es fehlt noch: Keine gelesene Passage betrifft die Frage.",
        "other_read": "{count} weitere Passage(n) gelesen, nicht zitiert",
        "on_question": "{count} zur Frage: {titles}",
        "off_question": "{count} nicht zur Frage, nicht aufgeführt",
        "skipped": "Aufgabe {id} ({title}) übersprungen: {reason}.",
        "fallback_used": "{count} Quelle(n) stammen von einer Ersatz-Suchmaschine und sind so markiert.",
        "no_evidence": "{title}: Für diese Aufgabe wurden keine Belege gefunden.",
        "off_topic": "Die Passagen dieser Aufgabe betrafen die Frage nicht (oder sind oben zitiert).",
        "removed": "{count} Zitat(e) ohne gelesene Quelle wurden entfernt.",
        "dropped_insights": "{count} Erkenntnis(se) ausgelassen: Die zitierte Passage stützt sie nicht.",
        "dropped_prose": "{count} Satz/Sätze des Modells ausgelassen: Keine gelesene Quelle sagt sie aus.",
        "model_failed": (
            "Das Modell ist in {count} Schritt(en) gescheitert ({steps}): Code hat dort übernommen; diese "
            "Teile beruhen allein auf den zitierten Belegen, ohne Urteil des Modells."
        ),
        "unverified": "Die Antwort ist unbestätigt: Kein Satz der gelesenen Quellen sagt sie aus.",
        "unverified_mark": "unbestätigt",
        "evidence_for": "Aus",
        "unconfirmed": "Nächstliegende Lesart, von den Belegprüfungen nicht bestätigt",
        "options_read": "Was die eigene Seite jeder Option sagt",
        "no_own_page": "keine eigene Seite unter den gelesenen Quellen",
        "via": "über",
        "gaps": "Begriffe der Frage, die keine Quelle enthielt: {terms}.",
        "task": "Aufgabe {id}: {title}",
    },
    "fr": {
        "abstained": "Les sources lues ne répondent pas à : {question}",
        "answer": "Réponse",
        "background": "Contexte",
        "insights": "Points clés",
        "evidence": "Preuves et données",
        "risks": "Risques et questions ouvertes",
        "references": "Références",
        "limits": "Limites de ce rapport",
        "established": "Établi",
        "inferred": "Déduit",
        "unknown": "Inconnu",
        "fallback": "source de secours",
        "none": "Aucune source n'a été lue.",
        "none_cited": "Aucune source lue par cette recherche n'a été citée.",
        "thin": (
            "Les preuves sont restées minces : après {rounds} tour(s), {relevant} source(s) sur "
            "{total} jugée(s) "
            "pertinente(s) pour leur tâche ({score:.0f}% par tâche en moyenne ; un rapport est fiable "
            "dès {threshold:.0f}%)."
        ),
        "coverage": (
            "Le passage cité le plus proche de la question contient {held} de ses {terms} termes clés."
        ),
        "relevance": "{relevant} source(s) sur {total} jugée(s) pertinente(s)",
        "missing_bridge": "Il manque encore le pont : aucun passage lu ne répond à « {what} ».",
        "missing_bridge_none": (
            "Il manque encore le pont : aucun passage lu ne répond à « {what} », et aucun ne porte sur "
            "la question."
        ),
        "missing_hop": (
            "Il manque encore le second saut : aucune phrase lue n'énonce clairement « {what} » (les "
            "plus proches sont citées plus haut)."
        ),
        "missing_answer": (
            "Il manque encore : aucune phrase lue n'énonce clairement la réponse (les plus proches "
            "sont citées plus haut)."
        ),
        "missing_answer_none": "Il manque encore : aucun passage lu ne porte sur la question.",
        "other_read": "{count} autre(s) passage(s) lu(s), non cité(s)",
        "on_question": "{count} sur la question : {titles}",
        "off_question": "{count} hors sujet, non listés",
        "skipped": "Tâche {id} ({title}) ignorée : {reason}.",
        "fallback_used": "{count} source(s) viennent d'un moteur de recherche de secours et sont marquées.",
        "no_evidence": "{title} : aucune preuve trouvée pour cette tâche.",
        "off_topic": (
            "Les passages lus pour cette tâche ne portaient pas sur la question (ou sont cités plus haut)."
        ),
        "removed": "{count} citation(s) ne renvoyant à aucune source lue ont été retirées.",
        "dropped_insights": "{count} point(s) écarté(s) : le passage cité ne les étaye pas.",
        "dropped_prose": "{count} phrase(s) du texte du modèle écartée(s) : aucune source lue ne les énonce.",
        "model_failed": (
            "Le modèle a échoué à {count} étape(s) ({steps}) : le code l'a remplacé ; ces parties ne "
            "reposent que sur les passages cités, sans jugement du modèle."
        ),
        "unverified": "La réponse n'est pas vérifiée : aucune phrase des sources lues ne l'énonce.",
        "unverified_mark": "non vérifié",
        "evidence_for": "Source",
        "unconfirmed": "Lecture la plus proche, non confirmée par les contrôles",
        "options_read": "Ce que dit la page propre de chaque option",
        "no_own_page": "aucune page propre parmi les sources lues",
        "via": "via",
        "gaps": "Termes de la question absents de toutes les sources : {terms}.",
        "task": "Tâche {id} : {title}",
    },
    "es": {
        "abstained": "Las fuentes leídas no responden: {question}",
        "answer": "Respuesta",
        "background": "Contexto",
        "insights": "Ideas clave",
        "evidence": "Pruebas y datos",
        "risks": "Riesgos y preguntas abiertas",
        "references": "Referencias",
        "limits": "Límites de este informe",
        "established": "Establecido",
        "inferred": "Inferido",
        "unknown": "Desconocido",
        "fallback": "fuente alternativa",
        "none": "No se leyó ninguna fuente.",
        "none_cited": "No se citó ninguna fuente leída en esta investigación.",
        "thin": (
            "La evidencia quedó escasa: tras {rounds} ronda(s), {relevant} de {total} fuentes se "
            "juzgaron pertinentes "
            "para su tarea ({score:.0f}% por tarea de media; un informe es fiable desde el {threshold:.0f}%)."
        ),
        "coverage": (
            "El pasaje citado más cercano a la pregunta contiene {held} de sus {terms} términos clave."
        ),
        "relevance": "{relevant} de {total} fuentes juzgadas pertinentes",
        "missing_bridge": "Falta aún el puente: ningún pasaje leído responde «{what}».",
        "missing_bridge_none": (
            "Falta aún el puente: ningún pasaje leído responde «{what}», y ninguno trata la pregunta."
        ),
        "missing_hop": (
            "Falta aún el segundo salto: ninguna frase leída afirma claramente «{what}» (las más "
            "cercanas se citan arriba)."
        ),
        "missing_answer": (
            "Falta aún: ninguna frase leída afirma claramente la respuesta (las más cercanas se citan "
            "arriba)."
        ),
        "missing_answer_none": "Falta aún: ningún pasaje leído trata la pregunta.",
        "other_read": "{count} pasaje(s) más leído(s), no citado(s)",
        "on_question": "{count} sobre la pregunta: {titles}",
        "off_question": "{count} ajenos a la pregunta, no listados",
        "skipped": "Tarea {id} ({title}) omitida: {reason}.",
        "fallback_used": "{count} fuente(s) provienen de un buscador alternativo y están marcadas.",
        "no_evidence": "{title}: no se encontró evidencia para esta tarea.",
        "off_topic": "Los pasajes leídos para esta tarea no trataban la pregunta (o ya se citan arriba).",
        "removed": "Se eliminaron {count} cita(s) que no remitían a ninguna fuente leída.",
        "dropped_insights": "Se omitieron {count} idea(s): el pasaje citado no las respalda.",
        "dropped_prose": "Se omitieron {count} frase(s) del modelo: ninguna fuente leída las afirma.",
        "model_failed": (
            "El modelo falló en {count} paso(s) ({steps}): el código lo sustituyó; esas partes se basan "
            "solo en los pasajes citados, sin juicio del modelo."
        ),
        "unverified": "La respuesta no está verificada: ninguna frase de las fuentes leídas la afirma.",
        "unverified_mark": "no verificado",
        "evidence_for": "De",
        "unconfirmed": "Lectura más cercana, no confirmada por las comprobaciones",
        "options_read": "Lo que dice la página propia de cada opción",
        "no_own_page": "ninguna página propia entre las fuentes leídas",
        "via": "vía",
        "gaps": "Términos de la pregunta que ninguna fuente contenía: {terms}.",
        "task": "Tarea {id}: {title}",
    },
}
