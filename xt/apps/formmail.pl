# nms FormMail 3.14c1: a taint-mode (-wT) form mailer with its modules
# inlined; POSTed forms (urlencoded and multipart) become mails piped to
# sendmail (here a stand-in that appends each mail to a file); a thank-you
# page or an error page.
my $REPO = 'athdot/cgi-bin';
{
    source  => "github:$REPO FormMail.pl",
    missing => sub { mirror_missing($REPO) },
    layout  => sub {
        my ($l) = @_;
        put("$l->{dir}/FormMail.pl", edit(mirror_file($REPO, 'FormMail.pl'),
            qr{\$mailprog\s*= '[^']*';} => "\$mailprog = '$l->{final_data}/sendmail -oi -t';",
            qr{\@referers\s*= qw\([^)]*\);} => '@referers = qw(127.0.0.1 localhost);',
            qr{\@allow_mail_to\s*= qw\([^)]*\);} => '@allow_mail_to = qw(forms@example.com);'), 0755);
        put("$l->{data}/sendmail", "#!/bin/sh\n# stand-in for sendmail: the mail, appended\n"
            . "{ echo \"=== sendmail \$*\"; cat; } >> '$l->{final_data}/mail.out'\n", 0755);
    },
    session => [
        { user => 'alice', get => '/cgi-bin/formmail/FormMail.pl' },
        { user => 'alice', post => '/cgi-bin/formmail/FormMail.pl',
          form => [recipient => 'forms@example.com', subject => 'Hello {pass}', email => 'alice@example.org',
                   realname => 'Alice', comments => "Line one\nLine two", required => 'email,realname'] },
        { user => 'bob', post => '/cgi-bin/formmail/FormMail.pl',
          multipart => [recipient => 'forms@example.com', subject => 'Multipart {pass}', email => 'bob@example.org',
                        realname => 'Bob', colour => 'green', sort => 'order:realname,colour'] },
        { user => 'carol', post => '/cgi-bin/formmail/FormMail.pl',
          form => [recipient => 'forms@example.com', email => 'not an address', required => 'email,realname'] },
        { user => 'dave', post => '/cgi-bin/formmail/FormMail.pl', form => [recipient => 'evil@example.net', email => 'd@example.org'] },
    ],
};
