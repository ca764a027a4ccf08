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
            "Evidence stayed thin: after {rounds} round(s) the passages read hold {score:.0f}% of the "
            "question's key terms (a report is trusted from {threshold:.0f}%)."
        ),
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
        "via": "via",
        "unanswered": "What the question asks — {question} — is not answered by any source read.",
        "gaps": "Terms of the question no source contained: {terms}.",
        "task": "Task {id}: {title}",
        "relevance": "{score:.0f}% of the question's key terms found",
        "background_fallback": "This report researches: {question}",
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
        "thin": "证据不足：经过 {rounds} 轮后整体关键词相关度为 {score:.0f}%，低于阈值 {threshold:.0f}%。",
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
        "via": "经由",
        "unanswered": "问题所问——{question}——没有任何已读来源作答。",
        "gaps": "来源中未出现的问题关键词：{terms}。",
        "task": "任务 {id}：{title}",
        "relevance": "关键词相关度 {score:.0f}%",
        "background_fallback": "本报告研究的问题：{question}",
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
            "Die Belege blieben dünn: Relevanz der Schlüsselbegriffe insgesamt {score:.0f}% nach {rounds} "
            "Runde(n), unter der Schwelle von {threshold:.0f}%."
        ),
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
        "via": "über",
        "unanswered": "Was die Frage wissen will — {question} — beantwortet keine gelesene Quelle.",
        "gaps": "Begriffe der Frage, die keine Quelle enthielt: {terms}.",
        "task": "Aufgabe {id}: {title}",
        "relevance": "Relevanz der Schlüsselbegriffe {score:.0f}%",
        "background_fallback": "Dieser Bericht untersucht: {question}",
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
            "Les preuves sont restées minces : pertinence globale des termes clés de {score:.0f}% après "
            "{rounds} tour(s), sous le seuil de {threshold:.0f}%."
        ),
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
        "via": "via",
        "unanswered": (
            "Ce que demande la question — {question} — ne trouve de réponse dans aucune source lue."
        ),
        "gaps": "Termes de la question absents de toutes les sources : {terms}.",
        "task": "Tâche {id} : {title}",
        "relevance": "pertinence des termes clés {score:.0f}%",
        "background_fallback": "Ce rapport étudie : {question}",
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
            "La evidencia quedó escasa: relevancia global de los términos clave del {score:.0f}% tras "
            "{rounds} ronda(s), por debajo del umbral del {threshold:.0f}%."
        ),
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
        "via": "vía",
        "unanswered": "Lo que pregunta la pregunta — {question} — no lo responde ninguna fuente leída.",
        "gaps": "Términos de la pregunta que ninguna fuente contenía: {terms}.",
        "task": "Tarea {id}: {title}",
        "relevance": "relevancia de los términos clave {score:.0f}%",
        "background_fallback": "Este informe investiga: {question}",
    },
}
