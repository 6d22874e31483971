/** Per-language building blocks for the built-in drafting engine. `{name}`, `{brand}`, `{topic}`, `{contact}` are filled in. */
export interface Phrases {
  greeting: { named: Record<Voice, string>; anonymous: Record<Voice, string> };
  thanks: Record<"positive" | "neutral" | "negative", string[]>;
  formalThanks: string;
  warmLine: string;
  empathyLine: string;
  topicPositive: string;
  topicNegative: string;
  neutralClose: string;
  contact: string;
  contactFallback: string;
  positiveClose: string[];
  signoff: Record<Voice, string>;
  topics: Record<string, string>;
  and: string;
}

export type Voice = "professional" | "friendly" | "casual";

const en: Phrases = {
  greeting: {
    named: { professional: "Dear {name},", friendly: "Hi {name},", casual: "Hey {name}!" },
    anonymous: { professional: "Hello,", friendly: "Hi there,", casual: "Hey there!" },
  },
  thanks: {
    positive: [
      "Thank you so much for the wonderful review.",
      "Thanks a lot for taking the time to share such kind words.",
      "We really appreciate your great feedback.",
    ],
    neutral: ["Thank you for sharing your experience with us.", "Thanks for taking the time to leave a review."],
    negative: [
      "Thank you for letting us know about your experience, and we are sorry it fell short.",
      "We are sorry to read about your experience, and we appreciate you telling us.",
    ],
  },
  formalThanks: "We sincerely appreciate your feedback.",
  warmLine: "It truly means a lot to all of us.",
  empathyLine: "We understand how frustrating that must have been.",
  topicPositive: "We are delighted that you enjoyed {topic}.",
  topicNegative: "We are sorry that {topic} did not meet your expectations.",
  neutralClose: "We would love to make your next visit a five-star one{topicHint}.",
  contact: "Please reach out to us at {contact} so we can make this right.",
  contactFallback: "Please get in touch with us directly so we can make this right.",
  positiveClose: ["We look forward to seeing you again soon!", "We hope to welcome you back soon!"],
  signoff: {
    professional: "Kind regards,\nThe {brand} team",
    friendly: "Warm wishes,\nThe {brand} team",
    casual: "Cheers,\nThe {brand} crew",
  },
  topics: {
    staff: "our team",
    service: "our service",
    price: "our pricing",
    wait_time: "the wait time",
    cleanliness: "the cleanliness",
    quality: "the quality",
    booking: "the booking experience",
    communication: "our communication",
    location: "getting to us",
    atmosphere: "the atmosphere",
  },
  and: "and",
};

const es: Phrases = {
  greeting: {
    named: { professional: "Estimado/a {name}:", friendly: "Hola {name}:", casual: "¡Hola {name}!" },
    anonymous: { professional: "Hola:", friendly: "Hola:", casual: "¡Hola!" },
  },
  thanks: {
    positive: ["Muchas gracias por su maravillosa reseña.", "Le agradecemos mucho sus amables palabras."],
    neutral: ["Gracias por compartir su experiencia con nosotros."],
    negative: ["Gracias por contarnos su experiencia; lamentamos que no haya sido la esperada."],
  },
  formalThanks: "Agradecemos sinceramente sus comentarios.",
  warmLine: "Significa mucho para todo nuestro equipo.",
  empathyLine: "Entendemos lo frustrante que debió de ser.",
  topicPositive: "Nos alegra mucho que haya disfrutado de {topic}.",
  topicNegative: "Lamentamos que {topic} no estuviera a la altura de sus expectativas.",
  neutralClose: "Nos encantaría que su próxima visita fuera de cinco estrellas{topicHint}.",
  contact: "Por favor, contáctenos en {contact} para poder solucionarlo.",
  contactFallback: "Por favor, póngase en contacto con nosotros para poder solucionarlo.",
  positiveClose: ["¡Esperamos verle pronto de nuevo!"],
  signoff: {
    professional: "Atentamente,\nEl equipo de {brand}",
    friendly: "Un saludo,\nEl equipo de {brand}",
    casual: "¡Hasta pronto!\nEl equipo de {brand}",
  },
  topics: {
    staff: "nuestro equipo",
    service: "nuestro servicio",
    price: "nuestros precios",
    wait_time: "el tiempo de espera",
    cleanliness: "la limpieza",
    quality: "la calidad",
    booking: "la reserva",
    communication: "nuestra comunicación",
    location: "el acceso",
    atmosphere: "el ambiente",
  },
  and: "y",
};

const fr: Phrases = {
  greeting: {
    named: { professional: "Bonjour {name},", friendly: "Bonjour {name},", casual: "Salut {name} !" },
    anonymous: { professional: "Bonjour,", friendly: "Bonjour,", casual: "Salut !" },
  },
  thanks: {
    positive: ["Merci beaucoup pour ce merveilleux avis.", "Merci infiniment pour vos mots si gentils."],
    neutral: ["Merci d'avoir partagé votre expérience avec nous."],
    negative: [
      "Merci de nous avoir fait part de votre expérience ; nous sommes désolés qu'elle n'ait pas été à la hauteur.",
    ],
  },
  formalThanks: "Nous vous remercions sincèrement pour votre retour.",
  warmLine: "Cela compte énormément pour toute l'équipe.",
  empathyLine: "Nous comprenons à quel point cela a dû être frustrant.",
  topicPositive: "Nous sommes ravis que vous ayez apprécié {topic}.",
  topicNegative: "Nous sommes désolés que {topic} n'ait pas répondu à vos attentes.",
  neutralClose: "Nous aimerions que votre prochaine visite mérite cinq étoiles{topicHint}.",
  contact: "N'hésitez pas à nous contacter au {contact} afin que nous puissions arranger les choses.",
  contactFallback: "N'hésitez pas à nous contacter directement afin que nous puissions arranger les choses.",
  positiveClose: ["Au plaisir de vous revoir bientôt !"],
  signoff: {
    professional: "Cordialement,\nL'équipe {brand}",
    friendly: "Bien à vous,\nL'équipe {brand}",
    casual: "À bientôt,\nL'équipe {brand}",
  },
  topics: {
    staff: "notre équipe",
    service: "notre service",
    price: "nos prix",
    wait_time: "le temps d'attente",
    cleanliness: "la propreté",
    quality: "la qualité",
    booking: "la réservation",
    communication: "notre communication",
    location: "l'accès",
    atmosphere: "l'ambiance",
  },
  and: "et",
};

const de: Phrases = {
  greeting: {
    named: { professional: "Sehr geehrte/r {name},", friendly: "Hallo {name},", casual: "Hi {name}!" },
    anonymous: { professional: "Guten Tag,", friendly: "Hallo,", casual: "Hi!" },
  },
  thanks: {
    positive: ["Vielen Dank für Ihre wunderbare Bewertung.", "Herzlichen Dank für Ihre freundlichen Worte."],
    neutral: ["Vielen Dank, dass Sie Ihre Erfahrung mit uns teilen."],
    negative: [
      "Danke, dass Sie uns von Ihrer Erfahrung berichten; es tut uns leid, dass sie nicht Ihren Erwartungen entsprach.",
    ],
  },
  formalThanks: "Wir schätzen Ihr Feedback sehr.",
  warmLine: "Das bedeutet unserem ganzen Team sehr viel.",
  empathyLine: "Wir verstehen, wie ärgerlich das gewesen sein muss.",
  topicPositive: "Es freut uns sehr, dass Ihnen {topic} gefallen hat.",
  topicNegative: "Es tut uns leid, dass {topic} nicht Ihren Erwartungen entsprach.",
  neutralClose: "Wir möchten, dass Ihr nächster Besuch fünf Sterne verdient{topicHint}.",
  contact: "Bitte kontaktieren Sie uns unter {contact}, damit wir das in Ordnung bringen können.",
  contactFallback: "Bitte kontaktieren Sie uns direkt, damit wir das in Ordnung bringen können.",
  positiveClose: ["Wir freuen uns auf Ihren nächsten Besuch!"],
  signoff: {
    professional: "Mit freundlichen Grüßen\nIhr {brand}-Team",
    friendly: "Viele Grüße\nIhr {brand}-Team",
    casual: "Bis bald!\nDein {brand}-Team",
  },
  topics: {
    staff: "unser Team",
    service: "unser Service",
    price: "unsere Preise",
    wait_time: "die Wartezeit",
    cleanliness: "die Sauberkeit",
    quality: "die Qualität",
    booking: "die Buchung",
    communication: "unsere Kommunikation",
    location: "die Anfahrt",
    atmosphere: "die Atmosphäre",
  },
  and: "und",
};

export const PHRASES: Record<string, Phrases> = { en, es, fr, de };
